/** Slack's retry headers, parsed once into typed values. */
export interface RetryInfo {
  /**
   * 1, 2 or 3 on Slack's quick retries, higher on a delayed redelivery (hourly, for up to about a day:
   * the claim outlives it, lib/store/limits.ts); undefined on a first delivery or an unreadable header.
   */
  retryNum: number | undefined;
  retryReason: string | undefined;
}

export function parseRetryHeaders(num: string | null | undefined, reason: string | null | undefined): RetryInfo {
  const text = num?.trim();
  const parsed = text && /^\d{1,3}$/.test(text) ? Number(text) : undefined;
  const why = reason?.trim();
  return {
    retryNum: parsed !== undefined && parsed > 0 ? parsed : undefined,
    retryReason: why ? why.slice(0, 64) : undefined,
  };
}
