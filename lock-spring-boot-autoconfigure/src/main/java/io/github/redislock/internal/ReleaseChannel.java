package io.github.redislock.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * One lock's release channel as this client sees it: whether it is subscribed, how many
 * waiters are on it, and whether it was dropped. Its own type because two classes share
 * it: {@link ReleaseSubscriptions}, which joins waiters to it, and
 * {@link IdleChannelJanitor}, which drops it once idle. Its counters are guarded by the
 * channel's monitor.
 */
final class ReleaseChannel {

	final LockKeys keys;

	final String name;

	// completes once the channel is subscribed; null before the first try
	@Nullable volatile CompletableFuture<Void> subscription;

	int members;

	// SUBSCRIBEs sent by this client whose confirmation has not come yet: those
	// confirmations are not re-subscriptions
	final AtomicInteger ownSubscribes = new AtomicInteger();

	boolean removed;

	// changes each time the last member leaves, so a drop scheduled then is void once a
	// member came back
	long idleGeneration;

	ReleaseChannel(LockKeys keys) {
		this.keys = keys;
		this.name = keys.channel();
	}

	boolean confirmsOwnSubscribe() {
		return this.ownSubscribes.getAndUpdate((pending) -> Math.max(0, pending - 1)) > 0;
	}

	/** Whether the channel's first subscription has completed. */
	boolean isSubscribed() {
		CompletableFuture<Void> subscription = this.subscription;
		return subscription != null && subscription.isDone() && !subscription.isCompletedExceptionally();
	}

}
