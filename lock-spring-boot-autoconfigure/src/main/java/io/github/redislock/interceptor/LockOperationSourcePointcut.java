package io.github.redislock.interceptor;

import java.lang.reflect.Method;

import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.jspecify.annotations.Nullable;

/**
 * Matches the methods the source knows as locked. Matching runs when a bean is proxied,
 * which is also when a bad annotation surfaces, so start-up fails on it.
 */
final class LockOperationSourcePointcut extends StaticMethodMatcherPointcut {

	private final LockOperationSource operationSource;

	LockOperationSourcePointcut(LockOperationSource operationSource) {
		this.operationSource = operationSource;
		setClassFilter(operationSource::isCandidateClass);
	}

	@Override
	public boolean matches(Method method, @Nullable Class<?> targetClass) {
		return this.operationSource.getLockOperation(method, targetClass) != null;
	}

	@Override
	public boolean equals(Object other) {
		return this == other || (other instanceof LockOperationSourcePointcut that
				&& this.operationSource.equals(that.operationSource));
	}

	@Override
	public int hashCode() {
		return LockOperationSourcePointcut.class.hashCode() * 31 + this.operationSource.hashCode();
	}

	@Override
	public String toString() {
		return "LockOperationSourcePointcut: " + this.operationSource;
	}

}
