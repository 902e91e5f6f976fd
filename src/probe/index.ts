/**
 * Checking a live gateway (DESIGN.md, "Checking a live gateway"): the validation plan, the result
 * file, the verdict and the diagnosis. Pure TypeScript on core, systems and config: the page runs
 * it in a worker, the command line (./cli, Node only) in its own process.
 */
export * from './model';
export * from './plan';
export * from './result';
export * from './observe';
export * from './diagnose';
export * from './verdict';
export * from './words';
