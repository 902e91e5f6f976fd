/**
 * Test vectors: a limiter's decisions on a run's arrivals as deterministic JSON,
 * and ready-to-run test files (Vitest, Jest, Go) that replay them against the user's own limiter
 * through a small adapter they fill in, driven by a fake clock.
 *
 * The vectors are one limiter's decisions with a monotonic clock: the run's arrival times and keys,
 * in order, decided afresh by `createLimiter(config)` — so they hold whatever the run's deployment
 * (several instances, a fleet, a jumping wall clock) does on top. Pure: no DOM, no clock.
 */
import type { AlgorithmConfig } from '../core';
import { createLimiter, plural } from '../core';
import type { SimResult } from '../sim';

/** The most vectors one file holds (the run's first ones); about 1 MB of JSON. */
export const MAX_VECTORS = 10_000;
export const TEST_VECTORS_VERSION = 1;

/** One request and what the limiter must answer. */
export interface TestVector {
  /** Fake-clock time in whole ms, passed to the limiter (ascending). */
  t: number;
  key: string;
  outcome: 'admit' | 'delay' | 'reject';
  /** > 0 exactly when outcome is 'delay'. */
  delayMs: number;
  /** > 0 exactly when outcome is 'reject'. */
  retryAfterMs: number;
  /** Further requests at this same instant that would be admitted. */
  remaining: number;
}

export interface TestVectorFile {
  format: 'rate-limit-lab/test-vectors';
  version: number;
  limiter: { name: string; system: string; config: AlgorithmConfig };
  /** How to read the vectors, and where they stop. */
  notes: string[];
  vectors: TestVector[];
}

/** The vectors of lane `laneIndex` of `result`. Throws on a lane that does not exist. */
export function testVectors(
  result: SimResult,
  laneIndex: number,
  system: string,
  maxVectors = MAX_VECTORS,
): TestVectorFile {
  const lane = result.lanes[laneIndex];
  if (lane === undefined) throw new Error(`test vectors: no lane ${laneIndex + 1} in this run`);
  const c = lane.columns;
  const limiter = createLimiter(lane.config);
  const rows = Math.min(c.rows, Math.max(0, Math.floor(maxVectors)));
  const vectors: TestVector[] = [];
  for (let r = 0; r < rows; r += 1) {
    const t = c.arrivalMs[r] as number;
    const client = result.arrivals.client[c.origin[r] as number] as number;
    const key =
      result.keyNames[(lane.clientKey ?? result.clientKey)[client] as number] ?? 'default';
    const d = limiter.decide(t, key);
    vectors.push({
      t,
      key,
      outcome: d.outcome,
      delayMs: d.delayMs,
      retryAfterMs: d.retryAfterMs,
      remaining: d.remaining,
    });
  }
  const notes = [
    'Replay in order: for each vector, set your fake clock to t (ms) and ask your limiter about key; it must answer outcome, and where your limiter reports them, delayMs, retryAfterMs (the smallest wait after which the same request passes) and remaining.',
    'One limiter, one process, a clock that only moves forward: the run’s deployment and clock jumps are not in these vectors.',
    'A rejected request changes no state; a delayed one holds its place (it is counted at once).',
  ];
  if (rows < c.rows) {
    notes.push(
      `The run has ${plural(c.rows, 'decision')} in this lane; the file holds the first ${rows}.`,
    );
  }
  return {
    format: 'rate-limit-lab/test-vectors',
    version: TEST_VECTORS_VERSION,
    limiter: { name: lane.name, system, config: lane.config },
    notes,
    vectors,
  };
}

/** The vectors as the JSON file people download (one vector a line, so a diff reads well). */
export function testVectorsJson(file: TestVectorFile): string {
  const head = JSON.stringify({ ...file, vectors: [] }, null, 2).replace(
    /\n {2}"vectors": \[\]\n\}$/,
    '',
  );
  const lines = file.vectors.map((v) => `    ${JSON.stringify(v)}`);
  return `${head}\n  "vectors": [\n${lines.join(',\n')}\n  ]\n}\n`;
}

/** The file names the generated tests expect, next to each other. */
export const VECTOR_FILE = 'rate-limit-vectors.json';

// ---------------------------------------------------------------------------------------------
// Vitest (TypeScript, ESM) and Jest (CommonJS, its globals)
// ---------------------------------------------------------------------------------------------

const JS_COMPARE = `    const problems = [];
    vectors.forEach((v, i) => {
      const got = limiter.decide(v.t, v.key);
      const where = \`vector \${i} (t=\${v.t} ms, key \${v.key})\`;
      if (got.outcome !== v.outcome) problems.push(\`\${where}: outcome \${got.outcome}, expected \${v.outcome}\`);
      for (const field of ['delayMs', 'retryAfterMs', 'remaining']) {
        if (got[field] !== undefined && got[field] !== v[field])
          problems.push(\`\${where}: \${field} \${got[field]}, expected \${v[field]}\`);
      }
    });
    expect(problems.slice(0, 20)).toEqual([]);`;

/** A Vitest test file: `rate-limit.vectors.test.ts`, beside `rate-limit-adapter.ts` and the JSON. */
export function vitestTestFile(file: TestVectorFile): string {
  return `// Generated by Rate Limit Lab: replays ${plural(file.vectors.length, 'decision')} of ${file.limiter.name}
// (${file.limiter.system}) against your limiter. Fill in rate-limit-adapter.ts; run: npx vitest run
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeLimiter } from './rate-limit-adapter';

const { vectors } = JSON.parse(
  readFileSync(fileURLToPath(new URL('./${VECTOR_FILE}', import.meta.url)), 'utf8'),
);

describe('rate limit test vectors (${file.limiter.name})', () => {
  it('decides every vector as the playground did', () => {
    const limiter = makeLimiter();
${JS_COMPARE}
  });
});
`;
}

/** The adapter the Vitest file imports: the user wraps their limiter in it. */
export function vitestAdapterFile(file: TestVectorFile): string {
  return `// Wrap your limiter here. decide(nowMs, key) is called with the fake clock's time in ms,
// ascending. Return the outcome; return delayMs / retryAfterMs / remaining only if your limiter
// reports them (left out, they are not compared).
// The playground's limiter: ${JSON.stringify(file.limiter.config)}
export interface Decision {
  outcome: 'admit' | 'delay' | 'reject';
  delayMs?: number;
  retryAfterMs?: number;
  remaining?: number;
}

export function makeLimiter(): { decide(nowMs: number, key: string): Decision } {
  throw new Error('rate-limit-adapter.ts: wrap your limiter in makeLimiter()');
}
`;
}

/** A Jest test file (CommonJS, Jest's globals): `rate-limit.vectors.test.js`. */
export function jestTestFile(file: TestVectorFile): string {
  return `// Generated by Rate Limit Lab: replays ${plural(file.vectors.length, 'decision')} of ${file.limiter.name}
// (${file.limiter.system}) against your limiter. Fill in rate-limit-adapter.js; run: npx jest
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { makeLimiter } = require('./rate-limit-adapter');

const { vectors } = JSON.parse(readFileSync(join(__dirname, '${VECTOR_FILE}'), 'utf8'));

describe('rate limit test vectors (${file.limiter.name})', () => {
  it('decides every vector as the playground did', () => {
    const limiter = makeLimiter();
${JS_COMPARE}
  });
});
`;
}

/** The adapter the Jest file requires. */
export function jestAdapterFile(file: TestVectorFile): string {
  return `// Wrap your limiter here. decide(nowMs, key) is called with the fake clock's time in ms,
// ascending. Return { outcome: 'admit' | 'delay' | 'reject' }, plus delayMs / retryAfterMs /
// remaining only if your limiter reports them (left out, they are not compared).
// The playground's limiter: ${JSON.stringify(file.limiter.config)}
function makeLimiter() {
  throw new Error('rate-limit-adapter.js: wrap your limiter in makeLimiter()');
}

module.exports = { makeLimiter };
`;
}

// ---------------------------------------------------------------------------------------------
// Go
// ---------------------------------------------------------------------------------------------

/** A Go test: `ratelimit_vectors_test.go` reading `testdata/rate-limit-vectors.json`. */
export function goTestFile(file: TestVectorFile, pkg = 'ratelimit'): string {
  return `// Generated by Rate Limit Lab: replays ${plural(file.vectors.length, 'decision')} of ${file.limiter.name}
// (${file.limiter.system}) against your limiter. Put ${VECTOR_FILE} in testdata/, fill in
// NewVectorAdapter (ratelimit_adapter_test.go), run: go test -run TestRateLimitVectors
package ${pkg}

import (
	"encoding/json"
	"os"
	"testing"
)

// VectorDecision is what your limiter answered. Leave DelayMs, RetryAfterMs or Remaining nil when
// your limiter does not report them: they are then not compared.
type VectorDecision struct {
	Outcome      string // "admit", "delay" or "reject"
	DelayMs      *int64
	RetryAfterMs *int64
	Remaining    *int64
}

// VectorAdapter wraps your limiter; Decide is called with the fake clock's time in ms, ascending.
type VectorAdapter interface {
	Decide(nowMs int64, key string) VectorDecision
}

type rateLimitVector struct {
	T            int64  \`json:"t"\`
	Key          string \`json:"key"\`
	Outcome      string \`json:"outcome"\`
	DelayMs      int64  \`json:"delayMs"\`
	RetryAfterMs int64  \`json:"retryAfterMs"\`
	Remaining    int64  \`json:"remaining"\`
}

func TestRateLimitVectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/${VECTOR_FILE}")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors []rateLimitVector \`json:"vectors"\`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	a := NewVectorAdapter()
	problems := 0
	// How many answers of each field were compared (a field your adapter leaves nil is not).
	compared := map[string]int{}
	for i, v := range file.Vectors {
		got := a.Decide(v.T, v.Key)
		compared["outcome"]++
		check := func(field string, got *int64, want int64) {
			if got == nil {
				return
			}
			compared[field]++
			if *got != want {
				t.Errorf("vector %d (t=%d ms, key %s): %s %d, expected %d", i, v.T, v.Key, field, *got, want)
				problems++
			}
		}
		if got.Outcome != v.Outcome {
			t.Errorf("vector %d (t=%d ms, key %s): outcome %s, expected %s", i, v.T, v.Key, got.Outcome, v.Outcome)
			problems++
		}
		check("delayMs", got.DelayMs, v.DelayMs)
		check("retryAfterMs", got.RetryAfterMs, v.RetryAfterMs)
		check("remaining", got.Remaining, v.Remaining)
		if problems >= 20 {
			t.Fatalf("stopping after %d differences", problems)
		}
	}
	t.Logf("compared: outcome %d, delayMs %d, retryAfterMs %d, remaining %d",
		compared["outcome"], compared["delayMs"], compared["retryAfterMs"], compared["remaining"])
}
`;
}

/** The Go adapter to fill in: `ratelimit_adapter_test.go`. */
export function goAdapterFile(file: TestVectorFile, pkg = 'ratelimit'): string {
  return `package ${pkg}

// The playground's limiter: ${JSON.stringify(file.limiter.config)}

// NewVectorAdapter wraps your limiter. Time comes from the vectors (a fake clock, in ms):
// pass it to your limiter (e.g. time.UnixMilli(nowMs)) instead of reading time.Now().
// With golang.org/x/time/rate, for example: r := lim.ReserveN(now, 1); d := r.DelayFrom(now)
// (Reservation.Delay reads the real clock); d == 0 is "admit"; 0 < d ≤ your maximum wait is
// "delay" with DelayMs = d rounded up to whole ms; else r.CancelAt(now) and "reject", with
// RetryAfterMs = d − your maximum wait, rounded up. Remaining = ⌊lim.TokensAt(now)⌋ (0 if < 0).
// Leave a field nil to skip comparing it.
func NewVectorAdapter() VectorAdapter {
	panic("ratelimit_adapter_test.go: wrap your limiter in NewVectorAdapter")
}
`;
}

/** Every generated file, by path, as the zip people download lays them out. */
export function testVectorFiles(file: TestVectorFile): Record<string, string> {
  const json = testVectorsJson(file);
  return {
    [VECTOR_FILE]: json,
    'README.md': `# Rate limit test vectors: ${file.limiter.name}

${plural(file.vectors.length, 'decision')} of ${file.limiter.name} (${file.limiter.system}), from Rate Limit Lab.
Each folder replays them against your limiter through an adapter you fill in, with a fake clock.

- vitest/: \`rate-limit.vectors.test.ts\` + \`rate-limit-adapter.ts\` — \`npx vitest run\`
- jest/: \`rate-limit.vectors.test.js\` + \`rate-limit-adapter.js\` — \`npx jest\`
- go/: \`ratelimit_vectors_test.go\` + \`ratelimit_adapter_test.go\` + \`testdata/\` — \`go test\`

${file.notes.map((n) => `- ${n}`).join('\n')}
`,
    [`vitest/${VECTOR_FILE}`]: json,
    'vitest/rate-limit.vectors.test.ts': vitestTestFile(file),
    'vitest/rate-limit-adapter.ts': vitestAdapterFile(file),
    [`jest/${VECTOR_FILE}`]: json,
    'jest/rate-limit.vectors.test.js': jestTestFile(file),
    'jest/rate-limit-adapter.js': jestAdapterFile(file),
    [`go/testdata/${VECTOR_FILE}`]: json,
    'go/ratelimit_vectors_test.go': goTestFile(file),
    'go/ratelimit_adapter_test.go': goAdapterFile(file),
  };
}
