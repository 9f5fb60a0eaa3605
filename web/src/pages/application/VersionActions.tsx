import { Alert, Button, Group, Loader, Menu, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { ProblemAlert } from '../../components/ui';

type Version = Schemas['Version'];

function useVersionChange(applicationId: number, version: Version, onDone: () => void) {
  const queryClient = useQueryClient();
  const path = { params: { path: { id: String(applicationId), versionId: String(version.id) } } };
  return {
    path,
    done: () => {
      void queryClient.invalidateQueries({ queryKey: ['applications', String(applicationId), 'versions'] });
      void queryClient.invalidateQueries({ queryKey: ['findings'] });
      void queryClient.invalidateQueries({ queryKey: ['scans'] });
      onDone();
    },
  };
}

function EditVersion({
  applicationId,
  version,
  onClose,
}: {
  applicationId: number;
  version: Version;
  onClose: () => void;
}) {
  const { path, done } = useVersionChange(applicationId, version, onClose);
  const [form, setForm] = useState({
    name: version.name,
    branch: version.branch ?? '',
    tag: version.tag ?? '',
  });
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/applications/{id}/versions/{versionId}', {
          ...path,
          body: { name: form.name, branch: form.branch || null, tag: form.tag || null },
        }),
      ),
    onSuccess: done,
  });
  const errors = fieldErrors(save.error);
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }
  return (
    <form onSubmit={submit}>
      <Stack gap="xs">
        <TextInput
          label="Name"
          value={form.name}
          onChange={(e) => setForm({ ...form, name: e.currentTarget.value })}
          error={errors.name}
          maxLength={200}
          data-autofocus
        />
        <TextInput
          label="Branch"
          value={form.branch}
          onChange={(e) => setForm({ ...form, branch: e.currentTarget.value })}
          error={errors.branch}
          maxLength={200}
        />
        <TextInput
          label="Tag"
          value={form.tag}
          onChange={(e) => setForm({ ...form, tag: e.currentTarget.value })}
          error={errors.tag}
          maxLength={200}
        />
        {save.error && !Object.keys(errors).length ? <ProblemAlert error={save.error} /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending} disabled={!form.name.trim()}>
            Save version
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Deleting removes the version's findings and scans: say how many, and ask for its name typed out. */
function DeleteVersion({
  applicationId,
  version,
  onClose,
}: {
  applicationId: number;
  version: Version;
  onClose: () => void;
}) {
  const { path, done } = useVersionChange(applicationId, version, onClose);
  const detail = useQuery({
    queryKey: ['applications', String(applicationId), 'versions', version.id],
    queryFn: () => unwrap(api.GET('/api/applications/{id}/versions/{versionId}', path)),
  });
  const [typed, setTyped] = useState('');
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/applications/{id}/versions/{versionId}', path)),
    onSuccess: done,
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    if (typed === version.name) remove.mutate();
  }
  return (
    <form onSubmit={submit}>
      <Stack gap="xs">
        {detail.isPending ? (
          <Group gap="xs" role="status">
            <Loader size="sm" />
            <Text size="sm">Counting findings and scans…</Text>
          </Group>
        ) : detail.isError ? (
          <ProblemAlert error={detail.error} />
        ) : (
          <Alert
            color="red"
            title="This cannot be undone"
            data-testid="delete-version-counts"
            // Outlined: red-9 on Mantine's light red background is 4.48:1, short of WCAG AA (axe).
            variant="outline"
          >
            Deleting version {version.name} also deletes its {detail.data.finding_count} finding(s) and{' '}
            {detail.data.scan_count} scan(s).
          </Alert>
        )}
        <TextInput
          label={`Type ${version.name} to confirm`}
          value={typed}
          onChange={(e) => setTyped(e.currentTarget.value)}
          autoComplete="off"
          data-autofocus
        />
        {remove.error ? <ProblemAlert error={remove.error} title="Not deleted" /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" color="red.9" loading={remove.isPending} disabled={typed !== version.name}>
            Delete version
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The actions on one row of the versions table: edit, make default, delete. */
export function VersionActions({ applicationId, version }: { applicationId: number; version: Version }) {
  const [dialog, setDialog] = useState<'edit' | 'delete' | null>(null);
  const [menuOpened, setMenuOpened] = useState(false);
  const openDialog = (which: 'edit' | 'delete') => {
    setMenuOpened(false);
    setDialog(which);
  };
  const close = () => setDialog(null);
  const { path, done } = useVersionChange(applicationId, version, () => undefined);
  const makeDefault = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/applications/{id}/versions/{versionId}', { ...path, body: { is_default: true } }),
      ),
    onSuccess: done,
  });
  return (
    <>
      {/* Closed before a dialog opens: an open menu left behind the modal is an empty role=menu
          outside any landmark to assistive technology (axe aria-required-children, region). */}
      <Menu position="bottom-end" opened={menuOpened} onChange={setMenuOpened}>
        <Menu.Target>
          <Button size="compact-xs" variant="subtle">
            Manage<span className="sr-only"> version {version.name}</span>
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item onClick={() => openDialog('edit')}>Rename or set branch/tag</Menu.Item>
          {version.is_default ? null : (
            <Menu.Item onClick={() => makeDefault.mutate()}>Make default</Menu.Item>
          )}
          {version.is_default ? null : (
            <Menu.Item color="red.9" onClick={() => openDialog('delete')}>
              Delete…
            </Menu.Item>
          )}
        </Menu.Dropdown>
      </Menu>
      {makeDefault.error ? <ProblemAlert error={makeDefault.error} /> : null}
      <Modal opened={dialog === 'edit'} onClose={close} title={`Edit version ${version.name}`}>
        {dialog === 'edit' ? (
          <EditVersion applicationId={applicationId} version={version} onClose={close} />
        ) : null}
      </Modal>
      <Modal opened={dialog === 'delete'} onClose={close} title={`Delete version ${version.name}`}>
        {dialog === 'delete' ? (
          <DeleteVersion applicationId={applicationId} version={version} onClose={close} />
        ) : null}
      </Modal>
    </>
  );
}
