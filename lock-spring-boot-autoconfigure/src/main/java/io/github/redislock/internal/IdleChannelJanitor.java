package io.github.redislock.internal;

import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Drops a lock's release channel once nobody has waited for it for a grace period: the
 * last waiter does not pay for an UNSUBSCRIBE round trip (which would stretch its wait
 * when Redis is slow), and a lock that is contended again soon keeps its subscription.
 * Split from {@link ReleaseSubscriptions} so that the rules for when a channel may go
 * (and why a drop never unsubscribes a channel a new waiter joined) sit in one place.
 */
final class IdleChannelJanitor {

	private final Map<String, ReleaseChannel> channels;

	private final ScheduledExecutorService janitor;

	private final long gracePeriodMillis;

	// sends the UNSUBSCRIBE, if a transport was chosen
	private final Consumer<String> unsubscribe;

	/**
	 * @param channels the subscribed channels by name, shared with
	 * {@link ReleaseSubscriptions}; a dropped channel leaves it
	 * @param janitor the thread drops run on; once shut down, drops run at once
	 */
	IdleChannelJanitor(Map<String, ReleaseChannel> channels, ScheduledExecutorService janitor, long gracePeriodMillis,
			Consumer<String> unsubscribe) {
		this.channels = channels;
		this.janitor = janitor;
		this.gracePeriodMillis = gracePeriodMillis;
		this.unsubscribe = unsubscribe;
	}

	/**
	 * A waiter left the channel; after the last one, the channel goes once the grace
	 * period passes idle.
	 */
	void left(ReleaseChannel channel) {
		synchronized (channel) {
			if (--channel.members > 0) {
				return;
			}
			long idleSince = ++channel.idleGeneration;
			try {
				this.janitor.schedule(() -> dropIfStillIdle(channel, idleSince), this.gracePeriodMillis,
						TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException closed) {
				dropIfStillIdle(channel, idleSince);
			}
		}
	}

	/**
	 * The channel's SUBSCRIBE failed or timed out, and may still take effect: the channel
	 * goes as soon as nobody is on it.
	 */
	void subscribeFailed(ReleaseChannel channel) {
		long idleSince;
		synchronized (channel) {
			idleSince = ++channel.idleGeneration;
		}
		try {
			this.janitor.execute(() -> dropIfStillIdle(channel, idleSince));
		}
		catch (RejectedExecutionException closed) {
			synchronized (channel) {
				channel.removed = true;
				this.channels.remove(channel.name, channel);
			}
		}
	}

	private void dropIfStillIdle(ReleaseChannel channel, long idleSince) {
		synchronized (channel) {
			if (channel.members > 0 || channel.removed || channel.idleGeneration != idleSince) {
				return;
			}
			// UNSUBSCRIBE goes out before the entry leaves the map: a caller that starts
			// waiting after that subscribes anew, and its SUBSCRIBE cannot be overtaken
			// by this UNSUBSCRIBE
			channel.removed = true;
			this.unsubscribe.accept(channel.name);
			this.channels.remove(channel.name, channel);
		}
	}

}
