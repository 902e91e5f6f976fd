// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/react';
import { MovingMarks } from '../../src/viz/MovingMarks';
import type { MovingMark } from '../../src/viz/MovingMarks';

afterEach(cleanup);

const mark = (outcome: MovingMark['outcome'], x: number, opacity = 1): MovingMark => ({
  outcome,
  x,
  y: 40,
  size: 9,
  opacity,
});

const paths = (root: Element) =>
  [...root.querySelectorAll('path')].map((p) => [p.getAttribute('class'), p.getAttribute('d')]);

describe('MovingMarks (pieces kept from frame to frame)', () => {
  it('draws each render from its own marks only: a shorter frame after a longer one keeps nothing of it', () => {
    const long = render(
      <svg>
        <MovingMarks
          marks={[mark('admit', 10), mark('admit', 30), mark('reject', 50), mark('admit', 70, 0.5)]}
        />
      </svg>,
    );
    expect(paths(long.container)).toEqual([
      [
        'rl-mark rl-mark--admit',
        'M5.5,40a4.5,4.5 0 1,0 9,0a4.5,4.5 0 1,0 -9,0M25.5,40a4.5,4.5 0 1,0 9,0a4.5,4.5 0 1,0 -9,0',
      ],
      ['rl-mark rl-mark--reject', 'M46.2,36.2L53.8,43.8M46.2,43.8L53.8,36.2'],
      ['rl-mark rl-mark--admit', 'M65.5,40a4.5,4.5 0 1,0 9,0a4.5,4.5 0 1,0 -9,0'],
    ]);
    long.unmount();
    const short = render(
      <svg>
        <MovingMarks marks={[mark('admit', 20.25)]} />
      </svg>,
    );
    expect(paths(short.container)).toEqual([
      ['rl-mark rl-mark--admit', 'M15.8,40a4.5,4.5 0 1,0 9,0a4.5,4.5 0 1,0 -9,0'],
    ]);
  });
});
