import { useEffect, useSyncExternalStore } from 'react';

export type Theme = 'light' | 'dark';

const KEY = 'rate-limit-lab.theme';
const DARK = '(prefers-color-scheme: dark)';
const listeners = new Set<() => void>();

/** The theme the person chose with the toggle (saved), or null to follow the system. */
function choice(): Theme | null {
  try {
    const saved = window.localStorage.getItem(KEY);
    return saved === 'light' || saved === 'dark' ? saved : null;
  } catch {
    return null;
  }
}

/** The theme to draw: the person's choice, else the system's. */
export function currentTheme(): Theme {
  return choice() ?? (window.matchMedia(DARK).matches ? 'dark' : 'light');
}

/** Remembers the person's choice and redraws. */
export function chooseTheme(theme: Theme): void {
  try {
    window.localStorage.setItem(KEY, theme);
  } catch {
    // Storage unavailable: the choice lasts until the page closes.
    document.documentElement.dataset.theme = theme;
  }
  for (const listener of listeners) listener();
}

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia(DARK);
  listeners.add(onChange);
  query.addEventListener('change', onChange);
  return () => {
    listeners.delete(onChange);
    query.removeEventListener('change', onChange);
  };
}

/** Applies the theme to the page (data-theme on <html>) and returns it; follows system changes. */
export function useTheme(): Theme {
  const theme = useSyncExternalStore<Theme>(subscribe, currentTheme, () => 'light');
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  return theme;
}
