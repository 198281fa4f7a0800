package io.github.redislock;

import java.util.List;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * Which packages of the library may use which, as the library's design says: the lock
 * core (the API package and {@code internal}) knows nothing of AOP, the interceptor or
 * Spring Boot; the annotation package is the annotation alone; the API and
 * {@code internal} meet only through the interfaces the API declares. A change that
 * crosses a line fails here naming the classes, rather than in a review.
 */
class ArchitectureTests {

	private static final JavaClasses library = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.github.redislock");

	/**
	 * The public API (the root package, the annotations, the fencing guards) knows
	 * nothing of the engine: the builder and {@code ReactiveRedisLockClient.create} find
	 * it through {@link RedisLockClientProvider}, a service the engine registers.
	 */
	@Test
	void theApiImportsNothingFromInternal() {
		noClasses().that()
			.resideInAnyPackage("io.github.redislock", "io.github.redislock.annotation..",
					"io.github.redislock.fencing..")
			.should()
			.dependOnClassesThat(resideInAPackage("io.github.redislock.internal.."))
			.check(library);
	}

	/**
	 * The engine is reached from the annotation side, never the other way: what the
	 * annotation asks for arrives as a request value the interceptor builds.
	 */
	@Test
	void theEngineKnowsNothingOfTheAnnotationsOrTheInterceptor() {
		noClasses().that()
			.resideInAPackage("io.github.redislock.internal..")
			.should()
			.dependOnClassesThat(
					resideInAnyPackage("io.github.redislock.annotation..", "io.github.redislock.interceptor.."))
			.check(library);
	}

	/**
	 * No package of the library depends on itself through another. The
	 * auto-configurations count as one: as Spring Boot's own, they name each other for
	 * their order and the runtime hints name the endpoint's types.
	 */
	@Test
	void thePackagesHaveNoCycles() {
		slices().assignedFrom(new SliceAssignment() {

			@Override
			public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
				String packageName = javaClass.getPackageName();
				if (!packageName.startsWith("io.github.redislock")) {
					return SliceIdentifier.ignore();
				}
				return packageName.startsWith("io.github.redislock.autoconfigure")
						? SliceIdentifier.of("io.github.redislock.autoconfigure..") : SliceIdentifier.of(packageName);
			}

			@Override
			public String getDescription() {
				return "the library's packages";
			}

		}).should().beFreeOfCycles().check(library);
	}

	/**
	 * What {@code internal} offers the rest of the library is a small façade; everything
	 * else is package-private.
	 */
	@Test
	void internalIsPublicOnlyThroughItsFacade() {
		classes().that()
			.resideInAPackage("io.github.redislock.internal")
			.and()
			.arePublic()
			.and()
			.areTopLevelClasses()
			.should()
			.haveNameMatching("io\\.github\\.redislock\\.internal\\.(" + String.join("|", INTERNAL_FACADE) + ")")
			.check(library);
	}

	// the façade: see io.github.redislock.internal's package-info
	private static final List<String> INTERNAL_FACADE = List.of("LockType", "LockSpec", "LockRequest", "ReactiveLocks",
			"LockInspector", "KindState", "HeldLock", "FencingCounter", "LockNames", "ReplicaAcknowledgement",
			"DefaultRedisLockClientProvider", "ScriptTexts");

	@Test
	void theLockCoreKnowsNothingOfAopTheInterceptorOrBoot() {
		noClasses().that()
			.resideInAnyPackage("io.github.redislock", "io.github.redislock.internal..")
			.should()
			.dependOnClassesThat(
					resideInAnyPackage("io.github.redislock.interceptor..", "io.github.redislock.autoconfigure..",
							"org.springframework.aop..", "org.aopalliance..", "org.springframework.boot.."))
			.check(library);
	}

	@Test
	void theAnnotationsNeedNothingButThemselves() {
		noClasses().that()
			.resideInAPackage("io.github.redislock.annotation..")
			.should()
			.dependOnClassesThat(resideInAnyPackage("io.github.redislock.internal..",
					"io.github.redislock.interceptor..", "io.github.redislock.autoconfigure..",
					"org.springframework.aop..", "org.springframework.boot.."))
			.check(library);
	}

	@Test
	void theInterceptorKnowsNothingOfBoot() {
		noClasses().that()
			.resideInAPackage("io.github.redislock.interceptor..")
			.should()
			.dependOnClassesThat(
					resideInAnyPackage("io.github.redislock.autoconfigure..", "org.springframework.boot.."))
			.check(library);
	}

	/**
	 * The stores that refuse a stale holder are built on the public API and Spring alone,
	 * as a user's own guard would be.
	 */
	@Test
	void theFencingGuardsUseOnlyThePublicApiAndSpring() {
		noClasses().that()
			.resideInAPackage("io.github.redislock.fencing..")
			.should()
			.dependOnClassesThat(resideInAnyPackage("io.github.redislock.internal..",
					"io.github.redislock.interceptor..", "io.github.redislock.autoconfigure..",
					"io.github.redislock.annotation..", "org.springframework.aop..", "org.springframework.boot.."))
			.check(library);
	}

}
