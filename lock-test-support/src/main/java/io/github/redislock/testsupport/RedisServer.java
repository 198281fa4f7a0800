package io.github.redislock.testsupport;

/**
 * A real Redis server owned by one test class: it can be stopped, started again on the
 * same port, and paused (as {@code SIGSTOP} or {@code docker pause} would) to simulate a
 * stall.
 *
 * <p>
 * Obtain one with {@link RedisServers#start(String...)} or, in JUnit 5 tests, through
 * {@link RedisServerExtension}.
 */
public interface RedisServer extends AutoCloseable {

	/** The host clients connect to. */
	String host();

	/**
	 * The port clients connect to; stays the same across {@link #stop()} and
	 * {@link #start()}.
	 */
	int port();

	/**
	 * Starts the server again after {@link #stop()}; its data is gone unless it was
	 * started with persistence (for example {@code --appendonly yes}), which then reloads
	 * it.
	 */
	void start();

	/**
	 * Starts the server again after {@link #stop()}, as {@link #start()} does, but
	 * returns as soon as it accepts connections, while it may still be loading what it
	 * persisted: until it has, it refuses most commands with {@code LOADING}. To make
	 * that last, start the server with, for example, {@code --key-load-delay 200} (a
	 * pause in microseconds per key loaded) and
	 * {@code --loading-process-events-interval-bytes 1024} (so that it answers while it
	 * loads), and {@code SAVE} enough keys before stopping it.
	 */
	void startWhileLoading();

	/** Stops the server abruptly, as a crash would: no save, open connections are cut. */
	void stop();

	/**
	 * Stops and starts the server: Lua script cache, subscriptions and connections are
	 * gone afterwards, and so are the keys unless the server persists them (see
	 * {@link #start()}).
	 */
	default void restart() {
		stop();
		start();
	}

	/**
	 * Stops the server abruptly, as a crash would, deletes whatever it persisted (its AOF
	 * and RDB files) and starts it again on the same port: it comes back empty, as a
	 * server without persistence would, even when it was started with
	 * {@code --appendonly yes}. A plain {@link #restart()} of such a server keeps what it
	 * had written to its AOF.
	 */
	void restartWithoutData();

	/**
	 * Freezes the server: connections stay open but nothing is answered until
	 * {@link #resume()}.
	 */
	void pause();

	/** Lets a {@link #pause() paused} server run again. */
	void resume();

	/** Whether the server is started and not paused. */
	boolean isRunning();

	/**
	 * Sends one command over a fresh connection and returns the raw reply, for checks
	 * that need no client.
	 */
	default String command(String... args) {
		return RespCommand.send(host(), port(), args);
	}

	/** Stops the server for good and frees its resources. */
	@Override
	void close();

}
