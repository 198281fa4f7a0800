package io.github.redislock;

import java.util.Iterator;
import java.util.ServiceLoader;

/**
 * The {@link RedisLockClientProvider} of this class loader, looked up once.
 */
final class ClientProviders {

	private ClientProviders() {
	}

	static RedisLockClientProvider provider() {
		return Holder.PROVIDER;
	}

	// loaded at the first use, not when the API's interfaces are
	private static final class Holder {

		static final RedisLockClientProvider PROVIDER = load();

		private static RedisLockClientProvider load() {
			Iterator<RedisLockClientProvider> providers = ServiceLoader
				.load(RedisLockClientProvider.class, RedisLockClientProvider.class.getClassLoader())
				.iterator();
			if (!providers.hasNext()) {
				throw new IllegalStateException("No " + RedisLockClientProvider.class.getName()
						+ " found in META-INF/services: a shaded or repackaged jar must keep (merge) the "
						+ "library's service files");
			}
			return providers.next();
		}

	}

}
