package io.github.redislock.sample.audit;

import java.util.Optional;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.IfLocked;

import org.springframework.stereotype.Component;

/**
 * Runs the stock audit on one instance at a time. Every instance's scheduler calls
 * {@link #runExclusively()} at about the same moments; the first to take lock
 * {@code stock-audit} runs the audit, the others do not wait ({@code waitTime = "0"}) and
 * skip the round. The lock stays taken for {@code sample.audit.hold-at-least} after the
 * round began, even when the audit was quicker, so that an instance whose clock is a few
 * seconds behind does not run the same round again.
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
	@DistributedLock(name = "stock-audit", waitTime = "0", ifLocked = IfLocked.SKIP,
			holdAtLeast = "${sample.audit.hold-at-least}")
	public Optional<StockAuditReport> runExclusively() {
		return Optional.of(this.auditor.audit());
	}

}
