/// <reference types="vite/client" />

/** d3-array as the first paint takes it: its own copy, holding only what it takes (vite.config.ts). */
declare module 'd3-array/first-paint' {
  export { range, ticks } from 'd3-array';
}
