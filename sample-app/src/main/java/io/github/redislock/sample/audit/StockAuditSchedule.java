package io.github.redislock.sample.audit;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Triggers the stock audit every {@code sample.audit.interval} (30 s by default) on every
 * instance, and counts the rounds this instance ran and skipped. The trigger and the
 * locked job are two beans because a skipped call never enters the locked method: only
 * its caller sees the {@code Optional.empty()} that tells it the round was skipped.
 */
@Component
public class StockAuditSchedule {

	private static final Log logger = LogFactory.getLog(StockAuditSchedule.class);

	private final StockAuditJob job;

	private final AtomicLong ran = new AtomicLong();

	private final AtomicLong skipped = new AtomicLong();

	private final AtomicReference<StockAuditReport> lastReport = new AtomicReference<>();

	StockAuditSchedule(StockAuditJob job) {
		this.job = job;
	}

	/**
	 * Runs one round: the audit if no other caller is running it, otherwise nothing.
	 * @return whether this call ran the audit
	 */
	@Scheduled(fixedDelayString = "${sample.audit.interval:30s}",
			initialDelayString = "${sample.audit.initial-delay:10s}")
	public boolean runRound() {
		Optional<StockAuditReport> report = this.job.runExclusively();
		if (report.isPresent()) {
			this.lastReport.set(report.get());
			long rounds = this.ran.incrementAndGet();
			logger.info("Stock audit ran (" + rounds + " here, " + this.skipped.get() + " skipped): "
					+ report.get().skus() + " SKUs, " + report.get().units() + " units");
			return true;
		}
		long rounds = this.skipped.incrementAndGet();
		logger.info("Stock audit skipped: another caller holds lock 'stock-audit' (" + rounds + " skipped, "
				+ this.ran.get() + " ran here)");
		return false;
	}

	/** The rounds ran and skipped so far on this instance. */
	public StockAuditStatistics statistics() {
		return new StockAuditStatistics(this.ran.get(), this.skipped.get(), this.lastReport.get());
	}

}
