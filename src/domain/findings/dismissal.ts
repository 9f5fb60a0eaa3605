/**
 * Why a finding is dismissed (`false_positive`) and, for an accepted risk, why it does not affect
 * the product: the one list of each. The API's enums, the acceptances and the VEX formats read
 * them from here.
 */

/** A dismissal's reason, as GitHub code scanning names them, plus an accepted risk. */
export const DISMISSAL_REASONS = ['false_positive', 'accepted_risk', 'wont_fix', 'used_in_tests'] as const;
export type DismissalReason = (typeof DISMISSAL_REASONS)[number];

/** The reason an acceptance gives its findings unless it names another. */
export const DEFAULT_ACCEPTANCE_REASON = 'accepted_risk' satisfies DismissalReason;

/** A reason that must end: an acceptance with it needs an expiry. */
export const EXPIRING_REASONS: readonly DismissalReason[] = ['accepted_risk'];

/** The VEX status justifications of `not_affected` (OpenVEX 0.2.0 and CISA's minimum requirements). */
export const VEX_JUSTIFICATIONS = [
  'component_not_present',
  'vulnerable_code_not_present',
  'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary',
  'inline_mitigations_already_exist',
] as const;
export type VexJustification = (typeof VEX_JUSTIFICATIONS)[number];

/** The life of an acceptance: only `active` covers findings. */
export const ACCEPTANCE_STATUSES = ['pending', 'active', 'rejected', 'revoked', 'expired'] as const;
export type AcceptanceStatus = (typeof ACCEPTANCE_STATUSES)[number];

/** The longest dismissal comment and impact statement kept. */
export const DISMISSAL_COMMENT_CAP = 4_000;
