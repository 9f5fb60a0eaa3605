import { lazy, Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { Layout, RequireAuth } from './components/Layout';
import { ErrorPage, PageLoader } from './components/ui';
import { LoginPage } from './pages/LoginPage';
import { ApiError } from './api/client';

// Each page is its own chunk: the findings list does not wait for the dashboard's charts.
const AdminPage = lazy(() => import('./pages/AdminPage').then((module) => ({ default: module.AdminPage })));
const ApiKeysPage = lazy(() =>
  import('./pages/ApiKeysPage').then((module) => ({ default: module.ApiKeysPage })),
);
const ApplicationPage = lazy(() =>
  import('./pages/ApplicationPage').then((module) => ({ default: module.ApplicationPage })),
);
const ApplicationsPage = lazy(() =>
  import('./pages/ApplicationsPage').then((module) => ({ default: module.ApplicationsPage })),
);
const ComponentsPage = lazy(() =>
  import('./pages/ComponentsPage').then((module) => ({ default: module.ComponentsPage })),
);
const GroupPage = lazy(() => import('./pages/GroupPage').then((module) => ({ default: module.GroupPage })));
const LicensePoliciesPage = lazy(() =>
  import('./pages/LicensePoliciesPage').then((module) => ({ default: module.LicensePoliciesPage })),
);
const SlaPage = lazy(() => import('./pages/SlaPage').then((module) => ({ default: module.SlaPage })));
const ProfilePage = lazy(() =>
  import('./pages/ProfilePage').then((module) => ({ default: module.ProfilePage })),
);
const DashboardPage = lazy(() =>
  import('./pages/DashboardPage').then((module) => ({ default: module.DashboardPage })),
);
const MetricsPage = lazy(() =>
  import('./pages/MetricsPage').then((module) => ({ default: module.MetricsPage })),
);
const MetricsReportPage = lazy(() =>
  import('./pages/MetricsReportPage').then((module) => ({ default: module.MetricsReportPage })),
);
const FindingPage = lazy(() =>
  import('./pages/FindingPage').then((module) => ({ default: module.FindingPage })),
);
const AcceptancesPage = lazy(() =>
  import('./pages/AcceptancesPage').then((module) => ({ default: module.AcceptancesPage })),
);
const FindingsPage = lazy(() =>
  import('./pages/FindingsPage').then((module) => ({ default: module.FindingsPage })),
);

// Start loading the chunk of the page being opened together with the main bundle, not after it.
const openedAt = window.location.pathname;
if (openedAt.startsWith('/findings/')) void import('./pages/FindingPage');
else if (openedAt.startsWith('/findings')) void import('./pages/FindingsPage');
else if (openedAt === '/') void import('./pages/DashboardPage');

export function App() {
  return (
    <Suspense fallback={<PageLoader />}>
      <Routes>
        <Route path="/login" element={<LoginPage />} />
        <Route
          element={
            <RequireAuth>
              <Layout />
            </RequireAuth>
          }
        >
          <Route index element={<DashboardPage />} />
          <Route path="findings" element={<FindingsPage />} />
          <Route path="findings/:id" element={<FindingPage />} />
          <Route path="metrics" element={<MetricsPage />} />
          <Route path="metrics/report" element={<MetricsReportPage />} />
          <Route path="acceptances" element={<AcceptancesPage />} />
          <Route path="applications" element={<ApplicationsPage />} />
          <Route path="components" element={<ComponentsPage />} />
          <Route path="applications/:ref" element={<ApplicationPage />} />
          <Route path="groups/:ref" element={<GroupPage />} />
          <Route path="sla" element={<SlaPage />} />
          <Route path="license-policies" element={<LicensePoliciesPage />} />
          <Route path="profile" element={<ProfilePage />} />
          <Route path="admin" element={<AdminPage />} />
          <Route path="api-keys" element={<ApiKeysPage />} />
          <Route path="*" element={<ErrorPage error={new ApiError(404, { title: 'Not found' })} />} />
        </Route>
      </Routes>
    </Suspense>
  );
}
