package io.github.redislock.sample.audit;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Shows how often this instance ran and skipped the stock audit.
 */
@RestController
public class StockAuditController {

	private final StockAuditSchedule schedule;

	StockAuditController(StockAuditSchedule schedule) {
		this.schedule = schedule;
	}

	@GetMapping("/jobs/stock-audit")
	StockAuditStatistics statistics() {
		return this.schedule.statistics();
	}

}
