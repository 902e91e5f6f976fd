import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@fontsource/inter/400.css';
import '@fontsource/inter/600.css';
import '@fontsource/jetbrains-mono/400.css';
import './ui/app/styles.css';
import { createPlaygroundStore } from './store';
import { PlaygroundProvider } from './store/react';
import { App } from './ui/app/App';
import { startFrom } from './ui/share/session';
import { currentTheme } from './ui/app/theme';
import { applyStart } from './ui/share/useUrlSync';

/** localStorage, or null where reading it throws (some private windows, sandboxed iframes). */
function storageOrNull(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

// The theme before the first paint, so a dark page never flashes light.
document.documentElement.dataset.theme = currentTheme();
const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root element');
const storage = storageOrNull();
const start = startFrom(window.location.search, storage);
const store = createPlaygroundStore();
applyStart(store, start);
createRoot(root).render(
  <StrictMode>
    <PlaygroundProvider store={store}>
      <App start={start} storage={storage} />
    </PlaygroundProvider>
  </StrictMode>,
);
