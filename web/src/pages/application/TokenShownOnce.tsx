import { Alert, Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';

/** A raw secret the server returns once: shown with a copy button and a warning. */
export function TokenShownOnce({ token, label = 'API token for CI' }: { token: string; label?: string }) {
  return (
    <Alert color="yellow" title={`${label} — shown only now`} role="status">
      <Stack gap="xs">
        <Text size="sm">
          Copy it now and store it as a CI secret; scanhub keeps only a hash and cannot show it again.
        </Text>
        <Group gap="xs" wrap="nowrap">
          <Code data-testid="raw-secret" style={{ wordBreak: 'break-all' }}>
            {token}
          </Code>
          <CopyButton value={token}>
            {({ copied, copy }) => (
              <Button size="xs" variant="outline" onClick={copy}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </Group>
      </Stack>
    </Alert>
  );
}
