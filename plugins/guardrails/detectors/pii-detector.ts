// PII: email addresses, phone numbers, payment cards (Luhn), IBANs (country length and mod 97), US SSNs
// (outside the never-issued ranges).
import { ibanChecksumValid, luhnValid } from './checksums.ts';
import { scanPatterns, type DetectorPattern } from './pattern-scan.ts';
import type { LocalDetector, PiiEntity } from './types.ts';

// IBAN lengths by country (SWIFT IBAN registry); a candidate of another length or country is not an IBAN.
const IBAN_LENGTHS = new Map(
  (
    'AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DK18 DO28 EE20 EG29 ES24 FI18 ' +
    'FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 ' +
    'LU20 LV21 MC27 MD24 ME22 MK19 MR27 MT31 MU30 NL18 NO15 PK24 PL28 PS29 PT25 QA29 RO24 RS22 SA24 SC31 SE24 SI19 ' +
    'SK24 SM27 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20'
  )
    .split(' ')
    .map((e) => [e.slice(0, 2), Number(e.slice(2))] as const),
);

function validIban(match: RegExpExecArray): boolean {
  const compact = match[0].replaceAll(' ', '');
  const length = IBAN_LENGTHS.get(compact.slice(0, 2));
  // A printed IBAN may run into a following 4-character word; its exact-length prefix is what counts.
  return length !== undefined && compact.length >= length && ibanChecksumValid(compact.slice(0, length));
}

function validSsn(match: RegExpExecArray): boolean {
  const [, area, , group, serial] = match;
  return area !== '000' && area !== '666' && area[0] !== '9' && group !== '00' && serial !== '0000';
}

const PATTERNS: Record<PiiEntity, DetectorPattern> = {
  email: { detector: 'pii.email', regex: /(?<![\w.%+-])[\w.%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}(?![\w-])/g },
  // International numbers need the leading + and 8 to 15 digits; national ones the North American plan's shape.
  phone: {
    detector: 'pii.phone',
    regex:
      /(?<![\w+])(?:\+[1-9](?:[\s.-]?\(?\d\)?){7,14}|(?:\([2-9]\d{2}\)\s?|[2-9]\d{2}[\s.-])[2-9]\d{2}[\s.-]\d{4})(?![\w-])/g,
  },
  // Unbroken, or grouped 4-4-4-4(-3) / 4-6-5 / 4-6-4 with one separator throughout.
  credit_card: {
    detector: 'pii.credit_card',
    regex: /(?<![\d+])(?:\d{13,19}|\d{4}([ -])\d{4}\1\d{4}\1\d{1,4}(?:\1\d{3})?|\d{4}([ -])\d{6}\2\d{4,5})(?!\d)/g,
    valid: (m) => luhnValid(m[0].replace(/\D/g, '')),
  },
  iban: {
    detector: 'pii.iban',
    regex: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?)(?![A-Za-z0-9])/g,
    valid: validIban,
  },
  // Formatted only (123-45-6789): a bare 9-digit number is too often something else.
  us_ssn: { detector: 'pii.us_ssn', regex: /(?<![\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d-])/g, valid: validSsn },
};

export const PII_ENTITIES = Object.keys(PATTERNS) as PiiEntity[];

export function piiDetector(entities: readonly PiiEntity[]): LocalDetector {
  const patterns = entities.map((e) => PATTERNS[e]);
  return (text) => scanPatterns(patterns, text);
}
