// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { SYSTEMS, systemById } from '../../src/systems';
import { entryResponse } from '../../src/systems/respond';
import { createLimiter } from '../../src/core';
import { StandardHeadersOption } from '../../src/ui/limiter/StandardHeadersOption';

afterEach(cleanup);

describe('the "add standard rate-limit headers" option', () => {
  it('is not offered where the real product cannot send them (it would change nothing there)', () => {
    for (const system of SYSTEMS) {
      render(<StandardHeadersOption system={system} checked={false} onChange={() => undefined} />);
      const box = screen.queryByRole('checkbox', { name: 'Add standard rate-limit headers' });
      // What the option would add for this system's default limiter, on its first request.
      const config = system.defaultConfig;
      const decision = createLimiter(config).decide(0, 'k');
      const fields = (on: boolean) =>
        entryResponse({ system: system.id, config, standardHeaders: on }, decision, 'p', {
          nowMs: 0,
        }).fields;
      if (system.standardHeadersSent === false) {
        expect(box, system.id).toBeNull();
        expect(screen.getByText(/not sent\./).textContent).toContain(system.standardHeadersHow);
        expect(fields(true), system.id).toEqual(fields(false));
      } else {
        expect(box, system.id).not.toBeNull();
      }
      cleanup();
    }
    expect(
      ['haproxy', 'traefik', 'cloudflare', 'caddy'].map(
        (id) => systemById(id)?.standardHeadersSent,
      ),
    ).toEqual([false, false, false, false]);
  });
});
