import { Button, Group, Modal, Select, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, fieldErrors, unwrap } from '../api/client';
import { ProblemAlert } from './ui';

export const REASONS = [
  { value: 'accepted_risk', label: 'Accepted risk' },
  { value: 'false_positive', label: 'False positive' },
  { value: 'wont_fix', label: 'Won’t fix' },
  { value: 'used_in_tests', label: 'Used in tests' },
];

export const JUSTIFICATIONS = [
  { value: 'component_not_present', label: 'Component not present' },
  { value: 'vulnerable_code_not_present', label: 'Vulnerable code not present' },
  { value: 'vulnerable_code_not_in_execute_path', label: 'Vulnerable code not in execute path' },
  {
    value: 'vulnerable_code_cannot_be_controlled_by_adversary',
    label: 'Vulnerable code cannot be controlled by adversary',
  },
  { value: 'inline_mitigations_already_exist', label: 'Inline mitigations already exist' },
];

type Reason = 'accepted_risk' | 'false_positive' | 'wont_fix' | 'used_in_tests';
type Justification =
  | 'component_not_present'
  | 'vulnerable_code_not_present'
  | 'vulnerable_code_not_in_execute_path'
  | 'vulnerable_code_cannot_be_controlled_by_adversary'
  | 'inline_mitigations_already_exist';

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/**
 * Accept the risk of findings of one application: reason, VEX justification or impact statement,
 * expiry (required for an accepted risk). Pending until approved when the group asks for four eyes.
 */
export function AcceptDialog({
  opened,
  onClose,
  applicationId,
  findingIds,
  onAccepted,
}: {
  opened: boolean;
  onClose: () => void;
  applicationId: number;
  findingIds: number[];
  onAccepted?: () => void;
}) {
  const queryClient = useQueryClient();
  const [reason, setReason] = useState<Reason>('accepted_risk');
  const [justification, setJustification] = useState<Justification | null>(null);
  const [impact, setImpact] = useState('');
  const [expires, setExpires] = useState(inDays(90));
  const accept = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/acceptances', {
          body: {
            application_id: applicationId,
            finding_ids: findingIds,
            reason,
            justification,
            impact_statement: impact.trim() === '' ? null : impact.trim(),
            expires_at: expires === '' ? null : expires,
          },
        }),
      ),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['findings'] });
      void queryClient.invalidateQueries({ queryKey: ['acceptances'] });
      onAccepted?.();
      onClose();
    },
  });
  const errors = fieldErrors(accept.error);
  return (
    <Modal opened={opened} onClose={onClose} title={`Accept ${findingIds.length} finding(s)`}>
      <Stack gap="sm">
        <Select
          label="Reason"
          data={REASONS}
          value={reason}
          allowDeselect={false}
          onChange={(value) => value && setReason(value as Reason)}
        />
        <Select
          label="Justification (VEX)"
          placeholder="None"
          clearable
          data={JUSTIFICATIONS}
          value={justification}
          onChange={(value) => setJustification(value as Justification | null)}
          error={errors.justification}
        />
        <Textarea
          label="Impact statement"
          description="Why the finding does not affect the product, in your words"
          value={impact}
          onChange={(event) => setImpact(event.currentTarget.value)}
          maxLength={4000}
          error={errors.impact_statement}
        />
        <TextInput
          label="Expires on"
          type="date"
          description={reason === 'accepted_risk' ? 'Required for an accepted risk' : 'Optional'}
          value={expires}
          onChange={(event) => setExpires(event.currentTarget.value)}
          error={errors.expires_at}
        />
        {accept.error ? <ProblemAlert error={accept.error} title="Not accepted" /> : null}
        <Text size="xs" c="dimmed">
          Findings that match later, in any version, are covered while the acceptance is active.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button loading={accept.isPending} onClick={() => accept.mutate()}>
            Accept
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
