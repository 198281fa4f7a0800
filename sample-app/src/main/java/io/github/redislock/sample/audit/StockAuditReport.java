package io.github.redislock.sample.audit;

import java.time.Instant;

/**
 * What one stock audit found.
 *
 * @param skus the SKUs with a stock level
 * @param units the units in stock over all SKUs
 * @param auditedAt when the audit finished
 */
public record StockAuditReport(int skus, long units, Instant auditedAt) {

}
