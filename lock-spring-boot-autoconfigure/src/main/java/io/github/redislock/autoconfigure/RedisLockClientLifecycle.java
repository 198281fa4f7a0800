package io.github.redislock.autoconfigure;

import io.github.redislock.RedisLockClient;

import org.springframework.context.SmartLifecycle;

/**
 * Closes the lock client while its Redis connections still work: after the web server has
 * stopped taking requests (its graceful shutdown runs in a later phase), before the
 * connection factory stops (phase 0). Closed at bean destruction instead, the client
 * would find its pub/sub connection already closed under it.
 */
class RedisLockClientLifecycle implements SmartLifecycle {

	/** Below the web server's graceful shutdown phase, above the connection factory's. */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2048;

	private final RedisLockClient client;

	private volatile boolean running;

	RedisLockClientLifecycle(RedisLockClient client) {
		this.client = client;
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		this.client.close();
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
