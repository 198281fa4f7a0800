package io.github.redislock.annotation;

import org.jspecify.annotations.Nullable;

/**
 * A {@link DistributedLock} annotation that cannot work as written: thrown while the
 * application starts, when the annotated bean is created, so that a mistake never turns
 * into a call that silently runs without its lock. Spring Boot shows it in its
 * "APPLICATION FAILED TO START" report, with {@link #getDescription()} under
 * <em>Description</em> and {@link #getAction()} under <em>Action</em>.
 *
 * @since 0.1.0
 */
public class InvalidLockAnnotationException extends IllegalStateException {

	private final String description;

	private final String action;

	/**
	 * Creates an exception.
	 * @param description what is wrong, naming the annotated method
	 * @param action how to fix it
	 */
	public InvalidLockAnnotationException(String description, String action) {
		this(description, action, null);
	}

	/**
	 * Creates an exception with the failure that revealed the mistake.
	 * @param description what is wrong, naming the annotated method
	 * @param action how to fix it
	 * @param cause what revealed it, for example a SpEL parse error
	 */
	public InvalidLockAnnotationException(String description, String action, @Nullable Throwable cause) {
		super(description + ". " + action, cause);
		this.description = description;
		this.action = action;
	}

	/** What is wrong, naming the annotated method. */
	public String getDescription() {
		return this.description;
	}

	/** How to fix it. */
	public String getAction() {
		return this.action;
	}

}
