package io.github.redislock.sample.audit;

/**
 * How the stock audit fared on this instance.
 *
 * @param ran the rounds this instance ran
 * @param skipped the rounds this instance skipped because another held the lock
 * @param lastReport the last report this instance produced, or {@code null}
 */
public record StockAuditStatistics(long ran, long skipped, StockAuditReport lastReport) {

}
