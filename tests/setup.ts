// Shared test setup. Component tests opt into jsdom with `// @vitest-environment jsdom` and get
// jest-dom's matchers from here; node tests pay nothing for it.
import { expect } from 'vitest';
import * as matchers from '@testing-library/jest-dom/matchers';

expect.extend(matchers);
