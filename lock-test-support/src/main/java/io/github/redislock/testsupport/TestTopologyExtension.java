package io.github.redislock.testsupport;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The lifecycle {@link RedisServerExtension} and {@link RedisClusterExtension} share: the
 * Redis a test class gets, started once for the class when the extension is in a static
 * field, or for each test when it is in an instance field, and closed after; a shared one
 * is restored after each test, so that one fault test cannot break the next.
 *
 * @param <T> what runs: a server, a Cluster
 */
abstract class TestTopologyExtension<T extends AutoCloseable>
		implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

	private final Supplier<T> starter;

	private @Nullable T running;

	private boolean perTest;

	TestTopologyExtension(Supplier<T> starter) {
		this.starter = starter;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.running = this.starter.get();
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		if (this.running == null) {
			this.perTest = true;
			this.running = this.starter.get();
		}
	}

	@Override
	public void afterEach(ExtensionContext context) {
		if (this.perTest) {
			close();
			return;
		}
		restore(running());
	}

	@Override
	public void afterAll(ExtensionContext context) {
		close();
	}

	/** Brings back to running what the test paused or stopped of the shared topology. */
	abstract void restore(T topology);

	/** What runs, from the first test on. */
	final T running() {
		T running = this.running;
		if (running == null) {
			throw new IllegalStateException(getClass().getSimpleName()
					+ "'s Redis starts before the first test; use it from a test, not while the test class is set up");
		}
		return running;
	}

	private void close() {
		T running = this.running;
		this.running = null;
		if (running != null) {
			try {
				running.close();
			}
			catch (Exception ex) {
				throw new IllegalStateException("Could not stop " + running, ex);
			}
		}
	}

}
