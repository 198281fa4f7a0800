package io.github.redislock.interceptor;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Tells which methods are locked and how. Implementations cache their answers: they are
 * asked on every call.
 *
 * @since 0.1.0
 */
public interface LockOperationSource {

	/**
	 * Returns the lock operation of a method, or {@code null} if it is not locked.
	 * @param method the method called (possibly an interface method)
	 * @param targetClass the class of the target bean, or {@code null}
	 * @throws IllegalStateException if the method's lock configuration is invalid; the
	 * message names the method and what is wrong
	 */
	@Nullable LockOperation getLockOperation(Method method, @Nullable Class<?> targetClass);

	/**
	 * Whether the class may have locked methods at all; {@code false} lets the proxy
	 * machinery skip it without asking about each method. The default says {@code true}.
	 * @param targetClass the class of a bean being created
	 * @throws IllegalStateException if a locked method of the class is configured wrongly
	 */
	default boolean isCandidateClass(Class<?> targetClass) {
		return true;
	}

}
