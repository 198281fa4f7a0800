package io.github.redislock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method while holding a distributed lock, and releases it when the
 * method returns or throws, or, for an asynchronous method, when its result completes.
 * Works on methods of Spring beans called through their proxy (not on self-invocation),
 * also when the annotation sits on an interface method or a superclass method, and as a
 * meta-annotation.
 *
 * <pre class="code">
 * &#64;DistributedLock(key = "#orderId")                       // lock "OrderService.ship:42"
 * public void ship(long orderId) { ... }
 *
 * &#64;DistributedLock(name = "stock", key = {"#tenant", "#sku"}, waitTime = "500ms", leaseTime = "10s")
 * public void reserve(String tenant, String sku, int quantity) { ... }
 *
 * &#64;DistributedLock(key = "#accountIds", ifLocked = IfLocked.SKIP)     // one lock per account
 * public Optional&lt;Transfer&gt; transfer(List&lt;Long&gt; accountIds) { ... }
 * </pre>
 *
 * The lock's name is {@link #name()} followed by the evaluated {@link #key()} parts,
 * joined by {@code ':'}; its Redis key is {@code <redis-lock.key-prefix>{<lock name>}}.
 *
 * <p>
 * A method returning {@link java.util.concurrent.CompletableFuture} or
 * {@link java.util.concurrent.CompletionStage} holds its locks until the stage it
 * returned completes (normally, exceptionally or cancelled): the call waits for the lock
 * on the calling thread as usual, each lock is then owned by a
 * {@link io.github.redislock.LockHandle}, and the caller gets a stage that completes once
 * the locks are released. A lock not acquired, or a lost lease with
 * {@link IfLeaseLost#THROW}, fails that stage instead of throwing. A nested locked call
 * on the same thread that needs a lock its caller holds shares the caller's hold when the
 * caller is asynchronous; an asynchronous call under a synchronous caller's lock fails at
 * once with {@link IllegalStateException}, since it would wait for its own caller.
 * <p>
 * On a {@code @Scheduled} method (also through a composed annotation that carries both),
 * the lock runs each tick on one instance, with nothing to tune: it does not wait (a
 * {@link #waitTime()} fails start-up), an instance that finds it taken skips the tick
 * (another instance runs it; {@code ifLocked} is read as {@code SKIP} unless a
 * {@link #fallback()} is named), and the lock stays taken, for nobody, for the rest of
 * the tick, unless {@link #holdAtLeast()} says otherwise: half-way to the instance's next
 * run for a cron or {@code fixedDelay} job, until the end of the period's window of
 * Redis' clock for a {@code fixedRate} job. A cron job thus runs once per tick while the
 * instances' clocks are less than half its interval apart; a {@code fixedRate} job never
 * twice in a window, and once when an instance fires within it; a {@code fixedDelay}
 * job's runs are at least its run time plus half its delay apart.
 * <p>
 * Every expression is checked when the bean is created; a mistake (bad syntax, an unknown
 * parameter, SKIP on a method returning a primitive, a method returning a plain
 * {@code Future} or a reactive type) fails application start-up naming the method. At
 * call time, a key part that evaluates to {@code null} or blank throws
 * {@link IllegalArgumentException} before the method runs.
 *
 * @since 0.1.0
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface DistributedLock {

	/**
	 * The lock's name before the key parts. Default:
	 * {@code <SimpleClassName>.<methodName>} of the class that declares the method.
	 */
	String name() default "";

	/**
	 * SpEL expressions whose values complete the lock's name, joined by {@code ':'}. They
	 * see the method's parameters by name ({@code #orderId}, needs {@code -parameters},
	 * which Spring Boot's build plugins set) or position ({@code #p0}, {@code #a0}),
	 * {@code #root.method}, {@code #root.args}, {@code #root.target},
	 * {@code #root.targetClass} and beans ({@code @beanName}). A value that is a
	 * collection or array locks each element (one lock each), all or none, in sorted
	 * order so that two calls cannot deadlock. A value containing {@code '{'} or {@code
	 * '}'} (which Redis Cluster reads as a hash tag) is used with them written as
	 * {@code %7B} and {@code %7D}. Empty: one lock for the method, whatever the
	 * arguments.
	 */
	String[] key() default {};

	/**
	 * Which lock of the name to take: the exclusive lock (the default), the read or write
	 * lock of the name's read/write lock, or its fair lock; each is a lock apart from the
	 * others. See {@link LockMode}.
	 * @since 0.1.0
	 */
	LockMode mode() default LockMode.EXCLUSIVE;

	/**
	 * How many calls may hold the name at once, across all instances: 1 (the default)
	 * takes the exclusive lock; above 1, a permit of the name's semaphore
	 * ({@code RedisLockClient.getSemaphore(name, permits)}), held as a handle until the
	 * method returns, or until its {@code CompletionStage}, {@code Mono} or {@code Flux}
	 * completes. A nested call of the same name takes a permit of its own, unless an
	 * enclosing call of this thread that returns a {@code CompletionStage} holds one.
	 * {@code ifLocked}, {@code fallback}, {@code holdAtLeast} and several keys (all
	 * permits or none) work as with the other modes. The limit is not stored in Redis:
	 * give every method of one name the same one. Start-up fails, naming the method, for
	 * a value below 1, or above 1 with a {@code mode} other than {@code EXCLUSIVE}.
	 * @since 0.1.0
	 */
	int permits() default 1;

	/**
	 * How long to wait for the lock, as Spring Boot writes durations ({@code 500ms},
	 * {@code 3s}, {@code PT3S}) or a {@code ${...}} placeholder. Empty:
	 * {@code redis-lock.wait-time}, and {@code 0} on a {@code @Scheduled} method, which
	 * refuses any other. {@code 0}: do not wait.
	 */
	String waitTime() default "";

	/**
	 * How long the lock stays held at most, in the same format as {@link #waitTime()}.
	 * Empty: {@code redis-lock.lease-time}, and when that is unset too, a lease the
	 * watchdog renews until the method returns.
	 */
	String leaseTime() default "";

	/**
	 * How long the lock stays taken at least, counted from its acquisition, in the same
	 * format as {@link #waitTime()}: a call that ends sooner leaves the lock taken, for
	 * nobody, until then, so that a short run is not repeated by an instance whose clock
	 * is behind. Only a lock the call still holds is kept; a {@code WRITE} lock is kept
	 * from readers and writers, a {@code READ} lock from writers only (see
	 * {@link LockMode}). Empty: released when the call ends, except on a
	 * {@code @Scheduled} method, whose lock is kept for the rest of its tick (see above).
	 * {@code 0}: released when the call ends.
	 * @since 0.1.0
	 */
	String holdAtLeast() default "";

	/**
	 * What the call does when the lock is not acquired within the wait time. Leave it at
	 * {@code THROW} when a {@link #fallback()} is named: the fallback answers then, and
	 * {@code SKIP} with a fallback fails start-up. On a {@code @Scheduled} method without
	 * a fallback, {@code SKIP} whatever this says: a tick another instance runs is not a
	 * failure, and the scheduler would only log it, on every other instance, every tick.
	 */
	IfLocked ifLocked() default IfLocked.THROW;

	/**
	 * What the call does when, on release, the lease turns out to have been lost while
	 * the method ran. Default: log it and return the method's result.
	 * @since 0.1.0
	 */
	IfLeaseLost ifLeaseLost() default IfLeaseLost.LOG;

	/**
	 * Name of a {@link LockFallback} bean that answers the call instead of the method
	 * when the lock is not acquired, for example with a cached or default value.
	 */
	String fallback() default "";

}
