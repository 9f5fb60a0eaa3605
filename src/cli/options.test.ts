import { describe, expect, it } from 'vitest';
import { csvCell } from '../modules/findings/findings-csv.presenter.ts';
import { relativeUri } from '../modules/findings/findings-sarif.presenter.ts';
import { CliError } from './errors.ts';
import { atOrAbove, connection, stringOption } from './options.ts';

describe('stringOption', () => {
  it('reads the value as typed, not as mri turned it into a number', () => {
    expect(stringOption(['upload', 'f', '--version', '1.10'], 'version', 1.1)).toBe('1.10');
    expect(stringOption(['upload', '--version=0x10', 'f'], 'version', 16)).toBe('0x10');
    expect(stringOption(['upload', 'f'], 'version', undefined)).toBeUndefined();
  });
  it('a flag without a value is a usage error (exit 2)', () => {
    expect(() => stringOption(['upload', '--version'], 'version', true)).toThrow(CliError);
  });
});

describe('connection', () => {
  it('takes flags over the environment, and an explicit --api-key over an inherited token', () => {
    const env = { SCANHUB_URL: 'http://h:1/', SCANHUB_TOKEN: 'sht_env' };
    expect(connection([], {}, env)).toEqual({
      baseUrl: 'http://h:1',
      credentials: { kind: 'token', token: 'sht_env' },
    });
    expect(connection(['--api-key', 'shk_x'], { apiKey: 'shk_x' }, env).credentials).toEqual({
      kind: 'api_key',
      key: 'shk_x',
    });
    expect(() => connection([], {}, { SCANHUB_URL: 'ftp://x' })).toThrow(/http/);
    expect(() => connection([], {}, { SCANHUB_URL: 'http://x' })).toThrow(/credentials/);
  });
});

describe('gate severities and export cells', () => {
  it('atOrAbove lists the level and those above it', () => {
    expect(atOrAbove('high')).toEqual(['critical', 'high']);
    expect(atOrAbove(undefined)).toHaveLength(5);
  });
  it('csvCell quotes every text per RFC 4180 and neutralises formulas in text only', () => {
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=1+1')).toBe(`"'=1+1"`);
    expect(csvCell('Hardcoded secret;=2*21;')).toBe(`"Hardcoded secret;'=2*21;"`);
    expect(csvCell('a, "@x')).toBe(`"a,' ""@x"`);
    expect(csvCell('-cmd,x')).toBe('"\'-cmd,x"');
    expect(csvCell('\rx')).toBe('"\'\rx"');
    expect(csvCell(-3)).toBe('-3');
    expect(csvCell(null)).toBe('');
  });
  it('relativeUri makes repository-relative URI references', () => {
    expect(relativeUri('/src/a b.ts')).toBe('src/a%20b.ts');
    expect(relativeUri('./src\\win.cs')).toBe('src/win.cs');
  });
});
