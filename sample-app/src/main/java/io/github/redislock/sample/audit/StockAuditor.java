package io.github.redislock.sample.audit;

import java.time.Instant;

import io.github.redislock.sample.stock.StockRepository;

import org.springframework.stereotype.Component;

/**
 * Counts the stock: the work of the audit job, the kind of work that should run on one
 * instance only because it reads everything and, in a real shop, would write reports or
 * send e-mails.
 */
@Component
public class StockAuditor {

	private final StockRepository repository;

	StockAuditor(StockRepository repository) {
		this.repository = repository;
	}

	/** Counts every SKU's stock. */
	public StockAuditReport audit() {
		int skus = 0;
		long units = 0;
		for (String sku : this.repository.skus()) {
			skus++;
			units += this.repository.available(sku);
		}
		return new StockAuditReport(skus, units, Instant.now());
	}

}
