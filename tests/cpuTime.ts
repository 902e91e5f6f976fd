/**
 * How long a synchronous call took the test's own process, for unit tests that bound work (an
 * import, a parse) rather than speed: the smaller of its wall time and the CPU time the process
 * spent meanwhile (process.cpuUsage, user + system). A machine busy with other jobs stretches the
 * wall time (the process waits for a core) but not the CPU time, so a bound that separates bounded
 * work from the seconds or minutes of an unbounded loop holds on a loaded machine too; the wall time
 * caps it when the process has other threads busy (a threads pool), where its CPU time is the
 * sum of theirs.
 */
export function timedCpu<T>(f: () => T): { value: T; ms: number } {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const value = f();
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  return { value, ms: Math.min(performance.now() - wall, cpuMs) };
}
