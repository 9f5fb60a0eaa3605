import { bandit } from './bandit.ts';
import { gosec } from './gosec.ts';
import { tfsec } from './tfsec.ts';
import { semgrep } from './semgrep.ts';
import { hadolint } from './hadolint.ts';
import { checkov } from './checkov.ts';
import { nuclei } from './nuclei.ts';
import { trivy } from './trivy.ts';
import { sarifParser } from './sarif.ts';
import { anchoreGrype } from './anchore-grype.ts';
import { sonarqube } from './sonarqube.ts';
import { gitlabSast } from './gitlab-sast.ts';
import { npmAudit } from './npm-audit.ts';
import { gitlabDepScan } from './gitlab-dep-scan.ts';
import { gitlabContainerScan } from './gitlab-container-scan.ts';
import { npmAudit7Plus } from './npm-audit-7-plus.ts';
import { gitleaks } from './gitleaks.ts';
import { osvScanner } from './osv-scanner.ts';
import { zap } from './zap.ts';
import { trufflehog } from './trufflehog.ts';
import { snyk } from './snyk.ts';
import { dependencyCheck } from './dependency-check.ts';
import { trufflehog3 } from './trufflehog3.ts';
import { cyclonedx } from './cyclonedx.ts';
import { burp } from './burp.ts';
import { kics } from './kics.ts';
import { eslint } from './eslint.ts';
import { pylint } from './pylint.ts';
import { cppcheck } from './cppcheck.ts';
import { shellcheck } from './shellcheck.ts';
import { gitlabCodeQuality } from './gitlab-code-quality.ts';
import { retirejs } from './retirejs.ts';
import { spdx } from './spdx.ts';
import { licensePolicy } from './license-policy.ts';
import type { ParserModule } from './types.ts';

/**
 * Every scanner format scanhub reads. Detection tries them in this order; each detector must be
 * specific enough that no corpus file matches two of them (test/ingest/detection.test.ts proves it).
 */
export const PARSERS: readonly ParserModule[] = [
  // one line per format: import the module above and list it here
  bandit,
  gosec,
  tfsec,
  semgrep,
  hadolint,
  checkov,
  nuclei,
  trivy,
  sarifParser,
  anchoreGrype,
  sonarqube,
  gitlabSast,
  npmAudit,
  gitlabDepScan,
  gitlabContainerScan,
  npmAudit7Plus,
  gitleaks,
  osvScanner,
  zap,
  trufflehog,
  snyk,
  dependencyCheck,
  trufflehog3,
  cyclonedx,
  burp,
  kics,
  eslint,
  pylint,
  cppcheck,
  shellcheck,
  gitlabCodeQuality,
  retirejs,
  spdx,
  licensePolicy,
];

export function findParser(name: string): ParserModule | undefined {
  return PARSERS.find((parser) => parser.name === name);
}
