/**
 * Pieces of YAML text that the import bounds are fuzzed with: brackets, indentation, anchors,
 * aliases and a mapping. One list for the property test (import-bounds.test.ts), the import bench
 * (tests/bench/hostile.ts) and the paste search (tests/bench/search.ts), which add their own.
 */
export const YAML_PIECES = [
  '[',
  ']',
  '{',
  '}',
  '- ',
  '? ',
  ': ',
  ',',
  '\n',
  '  ',
  'a',
  '"',
  "'",
  '#',
  '|',
  '&a ',
  '*a ',
  'k: v\n',
] as const;
