package io.github.redislock.sample.audit;

import java.util.Optional;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.IfLocked;

import org.springframework.stereotype.Component;

/**
 * Runs the stock audit on one instance at a time. Every instance's scheduler calls
 * {@link #runExclusively()} at the same moments; the first to take lock
 * {@code stock-audit} runs the audit, the others do not wait ({@code waitTime = "0"}) and
 * skip the round.
 */
@Component
public class StockAuditJob {

	private final StockAuditor auditor;

	StockAuditJob(StockAuditor auditor) {
		this.auditor = auditor;
	}

	/**
	 * Runs the audit unless another caller, here or on another instance, is running it.
	 * @return the report, or {@code Optional.empty()} when the round was skipped
	 */
	@DistributedLock(name = "stock-audit", waitTime = "0", ifLocked = IfLocked.SKIP)
	public Optional<StockAuditReport> runExclusively() {
		return Optional.of(this.auditor.audit());
	}

}
