// @vitest-environment jsdom
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPlaygroundStore, defaultInputs } from '../../src/store';
import type { PlaygroundInputs, PlaygroundStoreApi } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { DownloadMenu } from '../../src/ui/share/DownloadMenu';
import { svgToPng } from '../../src/ui/share/viewExport';
import type * as ViewExport from '../../src/ui/share/viewExport';
import type { ExportedView } from '../../src/ui/share/viewExport';

// jsdom has no canvas and cannot decode images: the PNG step is replaced (the browser test
// checks the real PNG); everything before it — the SVG it is given — is real.
const PNG_SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
vi.mock('../../src/ui/share/viewExport', async (importOriginal) => ({
  ...(await importOriginal<typeof ViewExport>()),
  svgToPng: vi.fn(() => Promise.resolve(new Blob([PNG_SIGNATURE], { type: 'image/png' }))),
}));

interface Saved {
  filename: string;
  blob: Blob;
}

let saved: Saved[] = [];
let revoked: string[] = [];

beforeEach(() => {
  saved = [];
  revoked = [];
  const blobs = new Map<string, Blob>();
  let n = 0;
  vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
    const url = `blob:test/${(n += 1)}`;
    blobs.set(url, blob as Blob);
    return url;
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation((url) => void revoked.push(url));
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
    this: HTMLAnchorElement,
  ) {
    saved.push({ filename: this.download, blob: blobs.get(this.href) as Blob });
  });
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** A fixed window of 2 per second facing requests at 100, 200 and 300 ms, paused at 250 ms. */
function store(inputs: Partial<PlaygroundInputs> = {}): PlaygroundStoreApi {
  const base = defaultInputs();
  const s = createPlaygroundStore({
    ...base,
    limiters: [{ config: { kind: 'fixed-window', limit: 2, windowMs: 1000 } }],
    scenario: { ...base.scenario, sources: [{ kind: 'manual', timesMs: [100, 200, 300] }] },
    untilMs: 2000,
    ...inputs,
  });
  s.getState().seek(250);
  return s;
}

/** The menu in a stage holding a drawing, as the page has it. */
function renderMenu(api: PlaygroundStoreApi) {
  return render(
    <PlaygroundProvider store={api}>
      <main className="stage">
        <DownloadMenu />
        <section className="panel timeline-panel">
          <svg className="rl-viz rl-timeline" width="300" height="60" viewBox="0 0 300 60">
            <circle className="rl-mark rl-mark--admit" cx="10" cy="10" r="4" fill="#0072b2" />
          </svg>
        </section>
      </main>
    </PlaygroundProvider>,
  );
}

async function choose(item: RegExp) {
  const toggle = screen.getByRole('button', { name: 'Download' });
  if (toggle.getAttribute('aria-expanded') !== 'true') await userEvent.click(toggle);
  await userEvent.click(screen.getByRole('button', { name: item }));
}

async function savedFile(count = 1): Promise<Saved> {
  await waitFor(() => expect(saved).toHaveLength(count));
  return saved[count - 1] as Saved;
}

describe('DownloadMenu', () => {
  it('saves the decision log as CSV, named after the lane’s system', async () => {
    renderMenu(store());
    await choose(/Decision log \(CSV\)/);
    const file = await savedFile();
    expect(file.filename).toBe('rate-limit-lab-redis-fixed-window-decisions.csv');
    expect(file.blob.type).toBe('text/csv;charset=utf-8');
    const lines = (await file.blob.text()).split('\r\n');
    expect(lines).toHaveLength(5);
    expect(lines[3]).toBe('Redis fixed window,3,3,1,300,client-1,1,1,reject,0,,700,0,700,429,1');
    // Said to screen readers (the browser shows the download itself).
    expect(
      await screen.findByText(
        'Saved rate-limit-lab-redis-fixed-window-decisions.csv: 3 decisions.',
      ),
    ).toHaveAttribute('role', 'status');
    // The menu closes and focus returns to its button.
    expect(screen.getByRole('button', { name: 'Download' })).toHaveAttribute(
      'aria-expanded',
      'false',
    );
    expect(screen.getByRole('button', { name: 'Download' })).toHaveFocus();
  });

  it('saves the decision log as JSON with the link to this moment', async () => {
    renderMenu(store());
    await choose(/Decision log \(JSON\)/);
    const file = await savedFile();
    expect(file.filename).toBe('rate-limit-lab-redis-fixed-window-decisions.json');
    expect(file.blob.type).toBe('application/json');
    const log = JSON.parse(await file.blob.text()) as {
      link: string;
      lanes: Array<{ name: string; system: string; requests: unknown[] }>;
    };
    expect(log.lanes[0]?.requests).toHaveLength(3);
    expect(log.lanes[0]).toMatchObject({
      name: 'Redis fixed window',
      system: 'redis-fixed-window',
    });
    expect(log.link).toMatch(/^http:\/\/localhost(:\d+)?\/\?v=1&.*t=250ms&paused/);
  });

  it('saves the view as a standalone SVG named after the lane’s system and the time', async () => {
    renderMenu(store());
    await choose(/View \(SVG\)/);
    const file = await savedFile();
    expect(file.filename).toBe('rate-limit-lab-redis-fixed-window-t0.25s.svg');
    expect(file.blob.type).toBe('image/svg+xml');
    const svg = await file.blob.text();
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    expect(doc.querySelector('parsererror')).toBeNull();
    expect(doc.documentElement.namespaceURI).toBe('http://www.w3.org/2000/svg');
    expect(doc.querySelector('title')?.textContent).toBe(
      'Rate Limit Lab · Redis fixed window · t = 250 ms',
    );
  });

  it('saves the view as a PNG drawn from that SVG', async () => {
    renderMenu(store());
    await choose(/View \(PNG\)/);
    const file = await savedFile();
    expect(file.filename).toBe('rate-limit-lab-redis-fixed-window-t0.25s.png');
    expect(file.blob.type).toBe('image/png');
    expect(new Uint8Array(await file.blob.arrayBuffer())).toEqual(PNG_SIGNATURE);
    const view = vi.mocked(svgToPng).mock.calls[0]?.[0] as ExportedView;
    expect(view.svg).toContain('<svg xmlns="http://www.w3.org/2000/svg"');
  });

  it('names a comparison "compare" and revokes each object URL afterwards', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const base = defaultInputs();
    renderMenu(
      store({
        limiters: [
          { config: { kind: 'fixed-window', limit: 2, windowMs: 1000 } },
          { config: { kind: 'sliding-log', limit: 2, windowMs: 1000 } },
        ],
        mode: 'compare',
        scenario: { ...base.scenario, sources: [{ kind: 'manual', timesMs: [100, 200, 300] }] },
      }),
    );
    await choose(/Decision log \(CSV\)/);
    const file = await savedFile();
    expect(file.filename).toBe('rate-limit-lab-compare-decisions.csv');
    expect((await file.blob.text()).split('\r\n')).toHaveLength(1 + 6 + 1);
    expect(revoked).toEqual([]);
    vi.advanceTimersByTime(30_000);
    expect(revoked).toEqual(['blob:test/1']);
  });

  it('says when a log would be cut and asks before saving it; Cancel saves nothing', async () => {
    const base = defaultInputs();
    // 250,000 decisions: over the 200,000 cap.
    renderMenu(
      store({
        scenario: {
          ...base.scenario,
          sources: [{ kind: 'constant', ratePerSec: 100_000, startMs: 0, endMs: 2500 }],
        },
        untilMs: 3000,
      }),
    );
    await choose(/Decision log \(CSV\)/);
    const dialog = await screen.findByRole('alertdialog', { name: 'The log is cut' });
    expect(dialog).toHaveTextContent(
      'The run has 250,000 decisions; a log holds at most 200,000. This one holds 200,000: every ' +
        'decision that arrived before 2,000 ms. Shorten the run',
    );
    expect(saved).toEqual([]);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(saved).toEqual([]);

    await choose(/Decision log \(CSV\)/);
    await userEvent.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', {
        name: 'Download the first 200,000',
      }),
    );
    const file = await savedFile();
    expect((await file.blob.text()).split('\r\n')).toHaveLength(1 + 200_000 + 1);
  }, 30_000);

  it('opens and closes from the keyboard; Escape closes it and returns focus', async () => {
    renderMenu(store());
    const toggle = screen.getByRole('button', { name: 'Download' });
    toggle.focus();
    await userEvent.keyboard('{Enter}');
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const panel = screen.getByRole('group', { name: 'Downloads' });
    expect(panel).toBeVisible();
    await userEvent.tab();
    expect(within(panel).getByRole('button', { name: /Decision log \(CSV\)/ })).toHaveFocus();
    await userEvent.keyboard('{Escape}');
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(panel).not.toBeVisible();
    expect(toggle).toHaveFocus();
  });
});
