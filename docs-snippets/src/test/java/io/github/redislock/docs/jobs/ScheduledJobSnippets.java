package io.github.redislock.docs.jobs;

import java.time.Duration;

import org.springframework.scheduling.annotation.Scheduled;

import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.IfLocked;

/** The code of docs/scheduled-jobs.md. */
class ScheduledJobSnippets {

	static class StockAudit {

		// tag::job[]
		@Scheduled(cron = "0 */10 * * * *")
		@DistributedLock(name = "stock-audit", waitTime = "0", ifLocked = IfLocked.SKIP, holdAtLeast = "2m")
		public void audit() {
			// runs on one instance per slot; the others skip at once
		}
		// end::job[]

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
