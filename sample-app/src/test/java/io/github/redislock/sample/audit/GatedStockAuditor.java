package io.github.redislock.sample.audit;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redislock.sample.stock.StockRepository;

/**
 * A stock auditor a test can hold inside the audit, lock held, until it lets it go.
 * Closed, each audit signals that it started and then waits for {@link #open()}; open,
 * audits run straight through.
 */
class GatedStockAuditor extends StockAuditor {

	private static final Duration MAX_HOLD = Duration.ofSeconds(30);

	private volatile CountDownLatch started = new CountDownLatch(0);

	private volatile CountDownLatch released = new CountDownLatch(0);

	GatedStockAuditor(StockRepository repository) {
		super(repository);
	}

	/** Makes the next audits stop after they start. */
	void close() {
		this.started = new CountDownLatch(1);
		this.released = new CountDownLatch(1);
	}

	/** Lets held audits finish and later ones run through. */
	void open() {
		this.released.countDown();
	}

	/** Waits until an audit has started. */
	boolean awaitStarted(Duration timeout) throws InterruptedException {
		return this.started.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
	}

	@Override
	public StockAuditReport audit() {
		this.started.countDown();
		try {
			if (!this.released.await(MAX_HOLD.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException("The test never opened the gate");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		return super.audit();
	}

}
