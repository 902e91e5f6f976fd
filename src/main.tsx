import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@fontsource/inter/400.css';
import '@fontsource/inter/600.css';
import '@fontsource/jetbrains-mono/400.css';
import './ui/styles.css';
import { PlaygroundProvider } from './store/react';
import { App } from './ui/App';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <PlaygroundProvider>
      <App />
    </PlaygroundProvider>
  </StrictMode>,
);
