import { chooseTheme, useTheme } from './theme';

/** Switches light and dark (remembered); until first used, the system preference decides. */
export function ThemeToggle() {
  const theme = useTheme();
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      className="theme-toggle"
      onClick={() => chooseTheme(next)}
      aria-label={`Switch to ${next} theme`}
    >
      {theme === 'dark' ? '☀ Light' : '☾ Dark'}
    </button>
  );
}
