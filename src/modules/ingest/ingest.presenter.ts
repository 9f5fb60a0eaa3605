import type { IngestedUpload } from '../../ingest/ingest-upload.ts';
import { presentScan, type ScanRecord } from '../scans/scans.presenter.ts';

export interface IngestResponse {
  status: 201 | 202;
  replayed: boolean;
  body: {
    scan: ScanRecord;
    findings_count: number;
    new_findings_count: number;
    existing_findings_count: number;
    fixed_findings_count: number;
  };
}

/** The answer to an upload: 201 with its counts once completed, 202 while pending. */
export function presentIngest({ scan: row, replayed }: IngestedUpload): IngestResponse {
  const scan = presentScan(row);
  return {
    status: scan.status === 'completed' ? 201 : 202,
    replayed,
    body: {
      scan,
      findings_count: scan.findings_count,
      new_findings_count: scan.new_findings_count,
      existing_findings_count: scan.existing_findings_count,
      fixed_findings_count: scan.fixed_findings_count,
    },
  };
}
