package net.javacrumbs.shedlock.support;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;

/**
 * Opens ShedLock's package-private {@link KeepAliveLockProvider} constructor, whose
 * minimal {@code lockAtMostFor} the public one fixes at 30 s, so that a test can watch
 * several keep-alive extensions in a few seconds.
 */
public final class KeepAliveLockProviders {

	private KeepAliveLockProviders() {
	}

	public static LockProvider keepingAlive(ExtensibleLockProvider provider, ScheduledExecutorService scheduler,
			Duration minimalLockAtMostFor) {
		return new KeepAliveLockProvider(provider, scheduler, minimalLockAtMostFor);
	}

}
