// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { CompareTable, describeDivergence, formatBytes, formatDuration } from '../../src/viz';
import { expectFinite, run } from './sim-fixtures';

afterEach(cleanup);

const fixed2 = { kind: 'fixed-window', limit: 2, windowMs: 1000 } as const;
const log2 = { kind: 'sliding-log', limit: 2, windowMs: 1000 } as const;
const nginx = { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 5, delay: 2 } as const;

/**
 * 900, 950, 1000 ms through "2 per second": the fixed window starts a fresh window at 1000 and
 * admits the third request; the sliding log still holds 900 and 950 and rejects it.
 */
const edge = () => run([fixed2, log2], [{ kind: 'manual', timesMs: [900, 950, 1000] }], 2000);

describe('CompareTable', () => {
  it('names the first request they decide differently and jumps there', () => {
    const result = edge();
    const onSeek = vi.fn();
    const onSelect = vi.fn();
    render(<CompareTable result={result} onSeek={onSeek} onSelect={onSelect} />);
    expect(result.divergence).toMatchObject({ origin: 2, atMs: 1000, lanes: [0, 1] });
    expect(screen.getByTestId('divergence-sentence')).toHaveTextContent(
      'Request #3 at 1.000 s: Redis fixed window admits, Redis sliding log rejects.',
    );
    expect(screen.getByRole('columnheader', { name: 'Request #3' })).toBeInTheDocument();
    expect(screen.getByTestId('at-divergence-0')).toHaveTextContent('admits');
    expect(screen.getByTestId('at-divergence-1')).toHaveTextContent('rejects');
    expect(screen.getByTestId('compare-row-0')).toHaveClass('rl-compare-diverges');
    expect(screen.getByTestId('compare-row-1')).toHaveClass('rl-compare-diverges');
    fireEvent.click(screen.getByRole('button', { name: 'Go to request #3' }));
    expect(onSeek).toHaveBeenCalledWith(1000);
    expect(onSelect).toHaveBeenCalledWith(0, 2);
  });

  it('groups lanes that agree: "a and b admit, c rejects"', () => {
    const result = run(
      [fixed2, { ...fixed2, limit: 3 }, log2],
      [{ kind: 'manual', timesMs: [900, 950, 1000] }],
      2000,
    );
    const d = result.divergence;
    expect(d).not.toBeNull();
    expect(describeDivergence(result, d as NonNullable<typeof d>)).toBe(
      'Request #3 at 1.000 s: Redis fixed window and Redis fixed window #2 admit, Redis sliding log rejects',
    );
    render(<CompareTable result={result} />);
    // Three lanes: the first difference of each pair that differs.
    const pairs = screen.getAllByTestId('pair-divergence');
    expect(pairs.map((p) => p.textContent)).toEqual([
      'Redis fixed window vs Redis sliding log: request #3 at 1.000 s (admits / rejects)',
      'Redis fixed window #2 vs Redis sliding log: request #3 at 1.000 s (admits / rejects)',
    ]);
  });

  it('shows each lane’s metrics: first and all attempts, backend burst, p95 delay, state', () => {
    // Clients retry after Retry-After, so all attempts differ from first attempts.
    const result = run(
      [fixed2, log2, nginx],
      [
        { kind: 'poisson', ratePerSec: 8, startMs: 0, endMs: 20_000 },
        { kind: 'burst', atMs: 5000, count: 12 },
      ],
      20_000,
      {
        retry: {
          onReject: 'retry-after',
          maxAttempts: 3,
          backoffBaseMs: 100,
          backoffCapMs: 10_000,
          turnaroundMs: 0,
        },
      },
    );
    const { container } = render(<CompareTable result={result} selectedLane={2} />);
    const table = screen.getByRole('table');
    expect(within(table).getByRole('columnheader', { name: 'First attempts' })).toBeInTheDocument();
    expect(within(table).getByRole('columnheader', { name: 'All attempts' })).toBeInTheDocument();
    // The selected lane is marked with ▸ (hidden from screen readers, which get aria-current).
    expect(
      within(table)
        .getAllByRole('rowheader')
        .map((h) => h.textContent),
    ).toEqual(['Redis fixed window', 'Redis sliding log', '▸ nginx']);
    const num = (id: string) =>
      Number((screen.getByTestId(id).firstChild?.textContent ?? '').replace(/,/g, ''));
    result.lanes.forEach((lane, i) => {
      const m = lane.metrics;
      expect(m.retries.offered).toBeGreaterThan(0);
      expect(num(`first-${i}-admitted`)).toBe(m.first.admitted);
      expect(num(`first-${i}-delayed`)).toBe(m.first.delayed);
      expect(num(`first-${i}-rejected`)).toBe(m.first.rejected);
      expect(num(`total-${i}-admitted`)).toBe(m.total.admitted);
      expect(num(`total-${i}-delayed`)).toBe(m.total.delayed);
      expect(num(`total-${i}-rejected`)).toBe(m.total.rejected);
      expect(num(`peak-backend-${i}`)).toBe(m.peakBackend.count);
      expect(screen.getByTestId(`p95-${i}`)).toHaveTextContent(
        m.delay.count > 0 ? formatDuration(m.delay.p95Ms) : '—',
      );
      expect(screen.getByTestId(`state-${i}`)).toHaveTextContent(formatBytes(m.state.peakBytes));
    });
    // Only nginx delays.
    expect(screen.getByTestId('p95-0')).toHaveTextContent('—');
    expect(screen.getByTestId('p95-2')).not.toHaveTextContent('—');
    expect(screen.getByTestId('compare-row-2')).toHaveAttribute('aria-current', 'true');
    expect(container.querySelector('caption')).toHaveTextContent('3 limiters, same traffic');
    expectFinite(container.innerHTML);
  });

  it('says when every limiter decides alike, and asks for a second one when alone', () => {
    const same = run([fixed2, { ...fixed2 }], [{ kind: 'manual', timesMs: [1, 2, 3] }], 100);
    const { unmount } = render(<CompareTable result={same} />);
    expect(screen.getByTestId('divergence')).toHaveTextContent(
      'All 2 limiters decide every first attempt the same way.',
    );
    expect(screen.queryByRole('button')).toBeNull();
    unmount();
    const one = run([fixed2], [{ kind: 'manual', timesMs: [] }], 100);
    const { container } = render(<CompareTable result={one} />);
    expect(screen.getByTestId('divergence')).toHaveTextContent('Add another limiter');
    expectFinite(container.innerHTML);
  });
});
