package io.github.redislock.interceptor;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * The root object key expressions see: {@code #root.method}, {@code #root.args},
 * {@code #root.target}, {@code #root.targetClass}, {@code #root.methodName}.
 *
 * @since 0.1.0
 */
final class LockExpressionRoot {

	private final Method method;

	private final @Nullable Object[] args;

	private final @Nullable Object target;

	private final @Nullable Class<?> targetClass;

	LockExpressionRoot(Method method, @Nullable Object[] args, @Nullable Object target,
			@Nullable Class<?> targetClass) {
		this.method = method;
		this.args = args;
		this.target = target;
		this.targetClass = targetClass;
	}

	/** The method called. */
	public Method getMethod() {
		return this.method;
	}

	/** The method's name. */
	public String getMethodName() {
		return this.method.getName();
	}

	/** The call's arguments. */
	public @Nullable Object[] getArgs() {
		return this.args;
	}

	/** The bean the method is called on. */
	public @Nullable Object getTarget() {
		return this.target;
	}

	/** The class of the bean. */
	public @Nullable Class<?> getTargetClass() {
		return this.targetClass;
	}

}
