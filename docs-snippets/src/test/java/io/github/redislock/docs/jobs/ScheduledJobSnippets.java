package io.github.redislock.docs.jobs;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;

import org.springframework.core.annotation.AliasFor;
import org.springframework.scheduling.annotation.Scheduled;

import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.annotation.DistributedLock;

/** The code of docs/scheduled-jobs.md. */
class ScheduledJobSnippets {

	static class StockAudit {

		// tag::job[]
		@Scheduled(cron = "0 */10 * * * *")
		@DistributedLock(name = "stock-audit")
		public void audit() {
			// runs on one instance per tick; the others skip the tick
		}
		// end::job[]

	}

	// tag::composed[]
	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@Scheduled
	@DistributedLock
	@interface ScheduledJob {

		@AliasFor(annotation = DistributedLock.class, attribute = "name")
		String name();

		@AliasFor(annotation = Scheduled.class, attribute = "cron")
		String cron();

	}
	// end::composed[]

	static class Reports {

		// tag::composed-use[]
		@ScheduledJob(name = "daily-report", cron = "0 0 6 * * *")
		public void dailyReport() {
			// ...
		}
		// end::composed-use[]

	}

	static void byHand(RedisLockClient locks, Runnable audit) {
		// tag::by-hand[]
		RedisLock lock = locks.getLock("stock-audit");
		if (lock.tryLock()) { // one attempt, no wait
			try {
				audit.run();
			}
			finally {
				// kept taken, for nobody, until 2 min after it was taken
				lock.unlock(Duration.ofMinutes(2));
			}
		}
		// end::by-hand[]
	}

}
