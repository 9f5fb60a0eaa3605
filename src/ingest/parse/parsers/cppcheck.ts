import { cppcheckConcern } from '../../../domain/findings/concern.ts';
import { parseCweIds } from './identifiers.ts';
import { isRecord, type JsonRecord, positiveIntOrDigits, recordList, trimmedText } from './json-value.ts';
import { reportPath } from './report-path.ts';
import { severityIn } from './severity.ts';
import {
  emptyFinding,
  type NormalizedFinding,
  ParseError,
  type ParserInput,
  type ParserModule,
  type Severity,
  type Sniff,
} from './types.ts';
import { parseXmlDocument } from './xml.ts';

/**
 * Cppcheck `--xml --xml-version=2` (written to stderr): `<results version="2"><cppcheck version/>
 * <errors><error id severity msg verbose cwe inconclusive?><location file line column info/>…
 * <symbol/></error></errors></results>`. One finding per `<error>`, which is Cppcheck's own count;
 * the first `<location>` is where the error is, later ones are the path that leads there.
 * `checkersReport` (Cppcheck ≥ 2.13 lists the checkers it ran) is a summary, not an error.
 *
 * Severity: Cppcheck's `error` is undefined behaviour — out-of-bounds access, use after free,
 * null dereference — which in C is memory corruption, so → high (not the linters' medium);
 * warning → medium; style, performance and portability → low; information → info.
 */

const TOOL = 'Cppcheck';
const SEVERITY: Record<string, Severity> = {
  error: 'high',
  warning: 'medium',
  style: 'low',
  performance: 'low',
  portability: 'low',
  information: 'info',
};
const SUMMARY_IDS = new Set(['checkersReport']);

function detect(sniff: Sniff): boolean {
  return sniff.rootElement === 'results' && /<cppcheck\s+version\s*=/.test(sniff.head);
}

const attribute = (element: JsonRecord, name: string): string | null => trimmedText(element[`@_${name}`]);

function toFinding(error: JsonRecord, toolVersion: string | null): NormalizedFinding {
  const id = attribute(error, 'id');
  const message = attribute(error, 'msg') ?? id ?? 'Cppcheck error';
  const verbose = attribute(error, 'verbose');
  const [location] = recordList(error['location']);
  const inconclusive = attribute(error, 'inconclusive') === 'true';
  const description = [
    verbose !== null && verbose !== message ? verbose : null,
    inconclusive ? 'Inconclusive.' : null,
  ]
    .filter(Boolean)
    .join('\n');
  const cweIds = parseCweIds(attribute(error, 'cwe'));
  return {
    ...emptyFinding({
      kind: 'code',
      concern: cppcheckConcern(cweIds),
      title: message,
      severity: severityIn(SEVERITY, attribute(error, 'severity')) ?? 'info',
      toolName: TOOL,
    }),
    description: description || null,
    ruleId: id,
    filePath: location ? reportPath(location['@_file']) : null,
    line: location ? positiveIntOrDigits(location['@_line']) : null,
    column: location ? positiveIntOrDigits(location['@_column']) : null,
    cweIds,
    toolVersion,
  };
}

async function* parse(input: ParserInput): AsyncIterable<NormalizedFinding> {
  const document = await parseXmlDocument(input, { arrayTags: ['error', 'location', 'symbol'] });
  const results = document['results'];
  if (!isRecord(results)) throw new ParseError('Cppcheck: the root element must be <results>');
  if (attribute(results, 'version') !== '2') {
    throw new ParseError('Cppcheck: only XML version 2 is read (run cppcheck with --xml-version=2)');
  }
  const [cppcheck] = recordList(results['cppcheck']);
  const toolVersion = cppcheck ? attribute(cppcheck, 'version') : null;
  const errors = results['errors'];
  for (const error of isRecord(errors) ? recordList(errors['error']) : []) {
    if (SUMMARY_IDS.has(attribute(error, 'id') ?? '')) continue;
    yield toFinding(error, toolVersion);
  }
}

export const cppcheck: ParserModule = { name: 'cppcheck', displayName: 'Cppcheck', detect, parse };
