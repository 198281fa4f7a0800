package io.github.redislock.autoconfigure;

import io.github.redislock.RedisLockClient;

import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;

/**
 * Closes the lock client while its Redis connections still work: after the web server has
 * stopped taking requests (its graceful shutdown runs in a later phase), before the
 * connection factory stops (phase 0). Closed at bean destruction instead, the client
 * would find its pub/sub connection already closed under it. Only a closing context
 * closes it: a context stopped and started again (or checkpointed and restored) keeps a
 * working client.
 */
class RedisLockClientLifecycle implements SmartLifecycle, ApplicationListener<ContextClosedEvent> {

	/** Below the web server's graceful shutdown phase, above the connection factory's. */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2048;

	private final RedisLockClient client;

	private volatile boolean running;

	private volatile boolean contextClosing;

	RedisLockClientLifecycle(RedisLockClient client) {
		this.client = client;
	}

	@Override
	public void start() {
		this.running = true;
	}

	// published before the lifecycle beans are stopped for the close
	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
		this.contextClosing = true;
	}

	@Override
	public void stop() {
		this.running = false;
		if (this.contextClosing) {
			this.client.close();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
