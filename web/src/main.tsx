import '@mantine/core/styles.css';
import '@mantine/charts/styles.css';
import '@mantine/dates/styles.css';
import '@mantine/notifications/styles.css';
import './app.css';
import { MantineProvider, createTheme, type CSSVariablesResolver } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { ApiError } from './api/client';
import { App } from './App';

// A session that ended (expired, signed out elsewhere, password reset) sends to sign-in from
// wherever the next request finds out.
const signedOut = (error: unknown): void => {
  if (error instanceof ApiError && error.status === 401) queryClient.setQueryData(['me'], null);
};

const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: signedOut }),
  mutationCache: new MutationCache({ onError: signedOut }),
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      // A 4xx will not change by asking again.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
    },
  },
});

// Shade 9 and auto-contrast keep text on coloured surfaces at WCAG AA (axe runs on every page).
const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: 9,
  autoContrast: true,
  defaultRadius: 'sm',
  components: {
    // The close button of every dialog has a name screen readers can read.
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    // Mantine renders a dialog's header as <header>; inside role="dialog" that is a second banner
    // landmark beside the app's own (axe: landmark-no-duplicate-banner). A dialog's title bar is no banner.
    ModalHeader: { defaultProps: { component: 'div' } },
    // The active link's light variant is the primary colour's shade 6 (3.5:1 on its tint, axe:
    // color-contrast); shade 9 is above 4.5:1.
    NavLink: { defaultProps: { color: 'blue.9' } },
  },
});

// Mantine's dimmed grey (gray.6) and error red (red.6) are below 4.5:1 on white; gray.7 and red.9 pass.
const resolver: CSSVariablesResolver = (current) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': current.colors.gray[7] ?? '#495057',
    '--mantine-color-error': current.colors.red[9] ?? '#c92a2a',
  },
  dark: {},
});

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={resolver}>
      <Notifications />
      <QueryClientProvider client={queryClient}>
        <BrowserRouter>
          <App />
        </BrowserRouter>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
