// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { systemById } from '../../src/systems';
import { ParamFields, parseDrafts } from '../../src/ui/limiter/ParamFields';

afterEach(cleanup);

const nginx: AlgorithmConfig = {
  kind: 'leaky-bucket',
  rate: 10,
  rateUnit: 'r/s',
  burst: 5,
  delay: 0,
};

describe('ParamFields', () => {
  it('labels fields with the official names and sends each valid edit', async () => {
    const onChange = vi.fn();
    render(<ParamFields config={nginx} onChange={onChange} />);
    const burst = screen.getByLabelText('burst');
    await userEvent.clear(burst);
    await userEvent.type(burst, '20');
    expect(onChange).toHaveBeenLastCalledWith({ ...nginx, burst: 20 });
    await userEvent.selectOptions(screen.getByLabelText('delay mode'), 'nodelay');
    expect(onChange).toHaveBeenLastCalledWith({ ...nginx, burst: 20, delay: 'nodelay' });
  });

  it('keeps an invalid value on screen with a message and never sends it', async () => {
    const onChange = vi.fn();
    render(<ParamFields config={nginx} onChange={onChange} />);
    const rate = screen.getByLabelText('rate');
    await userEvent.clear(rate);
    await userEvent.type(rate, '-3');
    expect(rate).toHaveValue('-3');
    expect(rate).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByRole('alert')).toHaveTextContent(
      'rate must be a whole number from 1 to 1,000,000, got -3',
    );
    for (const call of onChange.mock.calls)
      expect((call[0] as { rate: number }).rate).toBeGreaterThan(0);
  });

  it('replaces the drafts when a different config comes from outside', () => {
    const { rerender } = render(<ParamFields config={nginx} onChange={() => {}} />);
    rerender(
      <ParamFields
        config={{ kind: 'gcra', count: 30, periodMs: 60_000, burst: 15 }}
        onChange={() => {}}
      />,
    );
    expect(screen.getByLabelText('max_burst')).toHaveValue('15');
    expect(screen.getByLabelText('period')).toHaveValue('60000');
  });
});

describe('the Envoy local_ratelimit form', () => {
  it('offers only what Envoy has: no max_delay (Envoy never delays a request)', () => {
    const envoy = systemById('envoy')!;
    render(
      <ParamFields
        system={envoy}
        config={{ kind: 'token-bucket', maxTokens: 10, tokensPerFill: 5, fillIntervalMs: 1000 }}
        onChange={() => {}}
      />,
    );
    expect(screen.getByLabelText('max_tokens')).toHaveValue('10');
    expect(screen.getByLabelText('fill_interval')).toHaveValue('1000');
    expect(screen.queryByLabelText('max_delay')).toBeNull();
    expect(screen.queryByText(/x\/time\/rate|Reserve/)).toBeNull();
  });
});

describe('parseDrafts', () => {
  it('treats an empty optional field as its default and rejects text in a number field', () => {
    expect(
      parseDrafts('leaky-bucket', {
        rate: '2',
        rateUnit: 'r/m',
        burst: '0',
        delay: 'nodelay',
        limitReqStatus: '',
      }).config,
    ).toEqual({ kind: 'leaky-bucket', rate: 2, rateUnit: 'r/m', burst: 0, delay: 'nodelay' });
    const bad = parseDrafts('fixed-window', { limit: '1e3x', windowMs: '1000' });
    expect(bad.config).toBeNull();
    expect(bad.errors.limit).toBe('limit must be a whole number from 1 to 1,000,000, got "1e3x"');
  });

  it('names the field as the page shows it and always gives the range (-1, abc, 1.5)', () => {
    const drafts = { maxTokens: '', tokensPerFill: '5', fillIntervalMs: '1000' };
    for (const typed of ['-1', 'abc', '1.5']) {
      const { errors } = parseDrafts('token-bucket', { ...drafts, maxTokens: typed });
      expect(errors.maxTokens).toBe(
        `max_tokens must be a whole number from 1 to 1,000,000, got ${typed === 'abc' ? '"abc"' : typed}`,
      );
    }
    const interval = parseDrafts('token-bucket', {
      ...drafts,
      maxTokens: '5',
      fillIntervalMs: '0',
    });
    expect(interval.errors.fillIntervalMs).toBe(
      'fill_interval must be a whole number from 1 to 86,400,000 ms, got 0',
    );
  });

  it("uses a system's own names and derives what the system computes (Traefik)", async () => {
    const traefik = systemById('traefik');
    if (traefik === undefined) throw new Error('traefik is registered');
    const onChange = vi.fn();
    render(<ParamFields config={traefik.defaultConfig} system={traefik} onChange={onChange} />);
    expect(screen.getByLabelText('average')).toHaveValue('5');
    expect(screen.getByLabelText('period')).toHaveValue('1000');
    expect(screen.getByLabelText('burst')).toHaveValue('10');
    await userEvent.clear(screen.getByLabelText('average'));
    await userEvent.type(screen.getByLabelText('average'), '100');
    // 100 per 1 s: maxDelay = 1 s / (2·100) = 5 ms; ttl 2 s (rate_limiter.go).
    expect(onChange).toHaveBeenLastCalledWith({
      kind: 'token-bucket',
      maxTokens: 10,
      tokensPerFill: 100,
      fillIntervalMs: 1000,
      maxDelayMs: 5,
      idleResetS: 2,
    });
    await userEvent.clear(screen.getByLabelText('burst'));
    await userEvent.type(screen.getByLabelText('burst'), '0');
    expect(screen.getByRole('alert')).toHaveTextContent(
      'burst must be a whole number from 1 to 1,000,000, got 0',
    );
  });
});
