package io.github.redislock.internal;

import java.util.concurrent.CompletableFuture;

/**
 * How {@link ReleaseSubscriptions} subscribes to release channels: classic pub/sub
 * ({@link ClassicTransport}), or sharded pub/sub on a Redis Cluster
 * ({@link ShardedTransport}). A transport knows connections and channels; which waiters a
 * channel has is {@link ReleaseSubscriptions}' business.
 */
interface ReleaseTransport {

	/**
	 * Sends the subscription to one channel.
	 * @param what the caller's operation, for failure messages
	 * @param channel the channel
	 * @param deadline until when ({@link System#nanoTime()}) the caller waits
	 * @param sending run right before the command is written, so that its confirmation is
	 * told apart from a re-subscription ({@link Events#subscribed})
	 * @return completes once Redis confirmed the subscription
	 */
	CompletableFuture<Void> subscribe(String what, String channel, long deadline, Runnable sending);

	/** Drops the subscription to one channel; blocks up to the lock command timeout. */
	void unsubscribe(String channel);

	void close();

	/**
	 * What a transport tells about its channels. Called on Lettuce's event loop or the
	 * transport's own thread: must not block.
	 */
	interface Events {

		/** A message came on a channel. */
		void message(String channel, byte[] body);

		/**
		 * Redis confirmed a subscription: one this client sent, or a re-subscription
		 * after the channel was lost (a reconnect, a slot migration, a failover).
		 */
		void subscribed(String channel);

		/**
		 * The channel is not subscribed for now, and its releases are not heard until it
		 * is again: waiters should ask for their lock rather than wait for a message.
		 */
		void unheard(String channel);

	}

}
