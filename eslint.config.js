// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** Packages that draw or hold UI state: never in the pure layers. */
const uiPackages = [
  'react',
  'react-dom',
  'react/*',
  'react-dom/*',
  'zustand',
  'zustand/*',
  'd3',
  'd3-*',
];

/** Layers above core and sim, which the pure layers may not reach into. */
const upperLayers = [
  '**/config',
  '**/config/**',
  '**/export',
  '**/export/**',
  '**/store',
  '**/store/**',
];
const drawingLayers = ['**/viz', '**/viz/**', '**/ui', '**/ui/**'];
/** The systems layer sits on core, beside sim: core and sim never import it. */
const systemsLayer = ['**/systems', '**/systems/**'];

/** Wall clocks and ambient randomness break determinism (DESIGN.md, promise 1). */
const nondeterminism = {
  'no-restricted-properties': [
    'error',
    { object: 'Date', property: 'now', message: 'core/ and sim/ take time as an argument.' },
    { object: 'performance', property: 'now', message: 'core/ and sim/ take time as an argument.' },
    {
      object: 'Math',
      property: 'random',
      message: 'Use the seeded generator in src/sim/random.ts.',
    },
    { object: 'crypto', property: 'getRandomValues', message: 'Use the seeded generator.' },
  ],
  'no-restricted-syntax': [
    'error',
    {
      selector: "NewExpression[callee.name='Date']",
      message: 'new Date() reads the wall clock; core/ and sim/ take time as an argument.',
    },
  ],
  'no-restricted-globals': [
    'error',
    { name: 'window', message: 'core/ and sim/ run without a DOM.' },
    { name: 'document', message: 'core/ and sim/ run without a DOM.' },
  ],
};

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'test-results', 'playwright-report', 'coverage'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.browser, ...globals.node },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // React's rules where React may be imported: the pure layers may not import it (their
    // no-restricted-imports below), so they hold no component or hook to check, and the React
    // Compiler's analysis behind these rules is not spent on them.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/{core,sim,systems,trace,config,export}/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  // No import circles in src/: tests/config/house.test.ts walks the import graph once (type-only
  // imports counted too), which import-x/no-cycle repeated from every import of every file for
  // a quarter of the lint's time.
  {
    files: ['src/systems/**/*.ts'],
    rules: {
      ...nondeterminism,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: uiPackages, message: 'systems/ is pure TypeScript: no React, zustand or d3.' },
            {
              group: ['**/sim', '**/sim/**', ...upperLayers, ...drawingLayers],
              message: 'systems/ imports core only.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      ...nondeterminism,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: uiPackages, message: 'core/ is pure TypeScript: no React, zustand or d3.' },
            {
              group: [
                '**/sim',
                '**/sim/**',
                '**/trace',
                '**/trace/**',
                ...systemsLayer,
                ...upperLayers,
                ...drawingLayers,
              ],
              message: 'core/ imports nothing above it.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/sim/**/*.ts'],
    rules: {
      ...nondeterminism,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: uiPackages, message: 'sim/ is pure TypeScript: no React, zustand or d3.' },
            {
              group: [...systemsLayer, ...upperLayers, ...drawingLayers, '**/trace', '**/trace/**'],
              message: 'sim/ imports core only.',
            },
          ],
        },
      ],
    },
  },
  {
    // trace/ (access logs → typed-array traces) is pure like sim/ and sits on top of it.
    files: ['src/trace/**/*.ts'],
    rules: {
      ...nondeterminism,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: uiPackages, message: 'trace/ is pure TypeScript: no React, zustand or d3.' },
            {
              group: [...systemsLayer, ...upperLayers, ...drawingLayers],
              message: 'trace/ imports sim and core only.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/config/**/*.ts', 'src/export/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['react', 'react-dom', 'react/*', 'zustand', 'zustand/*'],
              message: 'config/ and export/ are pure TypeScript.',
            },
            {
              group: ['**/store', '**/store/**', ...drawingLayers],
              message: 'Imports point down only.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
