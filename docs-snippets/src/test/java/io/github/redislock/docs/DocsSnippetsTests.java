package io.github.redislock.docs;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the user guide's code true: every Java or Kotlin block of {@code README.md},
 * {@code CONTRIBUTING.md} and {@code docs/**.md} (but {@code docs/design/}) is a tagged
 * region of a source file that the build compiles, written between markers:
 *
 * <pre>
 * &lt;!-- snippet: docs-snippets/src/test/java/io/github/redislock/docs/client/ClientSnippets.java#lock --&gt;
 * ```java
 * (the lines between "// tag::lock[]" and "// end::lock[]", tabs as four spaces, common indent removed)
 * ```
 * &lt;!-- /snippet --&gt;
 * </pre>
 *
 * A block that differs from its region fails the build naming the Markdown file, the
 * line, the snippet and the first differing line. A block that shows another library's
 * code follows a line {@code <!-- not compiled: why -->} instead. With
 * {@code -Dsnippets.update=true} the Markdown is rewritten from the sources rather than
 * checked. Every {@code redis-lock.*} property the guide names must exist in the
 * starter's configuration metadata.
 * <p>
 * The user pages (all of these but {@link #CONTRIBUTOR_PAGES}) answer first, and so must:
 * no table cell over 300 characters, no name of a test class of this repository (which
 * test shows what goes under {@code docs/design/}), no phrase of a lab notebook (a load
 * average, a before/after comparison, an internal test run, a commit id: see
 * {@link #LAB_NOTEBOOK}), a line {@code Imports: `a.b.C`, ...} under every snippet that
 * uses imports, a version or a {@code lock-bom} import for every Maven dependency on
 * {@code io.github.redislock}, and {@code repositories} in every Gradle block that
 * declares dependencies.
 */
class DocsSnippetsTests {

	private static final Pattern SNIPPET = Pattern.compile(
			"^<!-- snippet: (\\S+?)#([\\w-]+) -->\\n```(\\w*)\\n(.*?)```\\n<!-- /snippet -->",
			Pattern.DOTALL | Pattern.MULTILINE);

	private static final Pattern CODE_FENCE = Pattern.compile("^```(java|kotlin)\\s*$");

	private static final Pattern TAG_LINE = Pattern.compile("^\\s*// (tag|end)::[\\w-]+\\[]\\s*$");

	private static final Pattern PROPERTY = Pattern
		.compile("(?<![\\w./-])(redis-lock\\.[a-z0-9.-]*[a-z0-9]|management\\.endpoint\\.locks\\.[a-z0-9.-]*[a-z0-9])");

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

	private static final Pattern METADATA_NAME = Pattern.compile("\"name\"\\s*:\\s*\"([^\"]+)\"");

	private final Path root = Path.of(System.getProperty("redislock.repositoryRoot", ".."))
		.toAbsolutePath()
		.normalize();

	private static final Pattern MARKER = Pattern.compile("^<!-- snippet: ", Pattern.MULTILINE);

	private static final Pattern EMPTY_SNIPPET = Pattern.compile("(<!-- snippet: [^>]+ -->)\\n(<!-- /snippet -->)");

	private final boolean update = Boolean.getBoolean("snippets.update");

	/**
	 * Pages for contributors, not users: they may name test classes, give run figures and
	 * history, and hold long tables. {@code docs/design/} and {@code CHANGELOG.md} are
	 * not among {@link #markdownFiles()} at all.
	 */
	private static final List<String> CONTRIBUTOR_PAGES = List.of("CONTRIBUTING.md", "docs/testing.md");

	/**
	 * Parts of user pages that another change is rewriting (issue #43): a page, or a
	 * page's section as {@code page#anchor}. The rules on test class names, table cells
	 * and imports leave them out until that change lands: remove an entry once its part
	 * passes.
	 */
	private static final List<String> BEING_REWRITTEN = List.of();

	/**
	 * Phrases of a lab notebook rather than a guide, each with what is wrong with it on a
	 * user page.
	 */
	private static final List<LabNotebook> LAB_NOTEBOOK = List.of(
			new LabNotebook("(?i)load averages?",
					"a load average is a condition of one test run, not something "
							+ "a user can check or rely on: say what holds (a bound, a guarantee) instead"),
			new LabNotebook("(?i)\\btorture\\b", "names an internal test run"),
			new LabNotebook("(?i)\\(before:", "a before/after comparison is development history"),
			new LabNotebook("(?i)\\b(?:the|a) version before\\b", "compares with an earlier development state"),
			new LabNotebook("(?i)\\bscratch branch", "development history"),
			new LabNotebook("(?i)\\bwork[- ]?log\\b", "an internal work-log reference"),
			new LabNotebook("(?i)\\b(?:this|that|the last|an earlier|a previous) session\\b",
					"a development session is history"),
			new LabNotebook("(?i)\\btargets? (?:this|the) run\\b",
					"the project's own targets are not a user's concern"),
			new LabNotebook("\\((?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\\)",
					"a commit id labels a development state: say which release instead"));

	/**
	 * A logger category of the engine, {@code io.github.redislock.<category>}: a
	 * {@code static final String} constant or a {@code getLog("...")} argument.
	 */
	private static final Pattern LOGGER_CATEGORY = Pattern.compile(
			"static final String \\w+ = \"io\\.github\\.redislock\\.([a-z]+)\";|getLog\\(\"io\\.github\\.redislock\\.([a-z]+)\"\\)");

	private static final int MAX_CELL = 300;

	private static final Pattern TABLE_CELL_SEPARATOR = Pattern.compile("(?<!\\\\)\\|");

	private static final Pattern TEST_CLASS_LIKE = Pattern.compile("\\b[A-Z]\\w*(Tests|IT)\\b");

	private static final Pattern XML_BLOCK = Pattern.compile("(?ms)^```xml\\n(.*?)^```");

	private static final Pattern DEPENDENCY = Pattern.compile("(?s)<dependency>(.*?)</dependency>");

	private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+(static\\s+)?([\\w.]+)\\s*;?\\s*$");

	private static final Pattern HEADING = Pattern.compile("(?m)^## (.*)$");

	/** A Gradle dependency on a redis-lock module without a version. */
	private static final Pattern GRADLE_UNVERSIONED = Pattern.compile("[\"']io\\.github\\.redislock:([\\w-]+)[\"']");

	private static final Pattern GRADLE_BLOCK = Pattern.compile("(?ms)^```(groovy|kotlin|gradle|kts)\\n(.*?)^```");

	@Test
	void everySnippetMatchesItsSourceRegion() throws IOException {
		List<String> problems = new ArrayList<>();
		int snippets = 0;
		for (Path markdown : markdownFiles()) {
			String text = Files.readString(markdown);
			if (this.update) {
				// a new snippet's markers, with no code between them yet: filled below
				text = EMPTY_SNIPPET.matcher(text).replaceAll("$1\n```java\n```\n$2");
			}
			int markers = (int) MARKER.matcher(text).results().count();
			int matched = 0;
			Matcher matcher = SNIPPET.matcher(text);
			StringBuilder rewritten = new StringBuilder();
			while (matcher.find()) {
				snippets++;
				matched++;
				String where = root.relativize(markdown) + ":" + lineOf(text, matcher.start());
				String source = matcher.group(1);
				String tag = matcher.group(2);
				String expected;
				try {
					expected = region(source, tag);
				}
				catch (IllegalArgumentException ex) {
					problems.add(where + ": snippet " + source + "#" + tag + ": " + ex.getMessage());
					matcher.appendReplacement(rewritten, Matcher.quoteReplacement(matcher.group()));
					continue;
				}
				String language = source.endsWith(".kt") ? "kotlin" : "java";
				String actual = matcher.group(4);
				if (!expected.equals(actual) || !language.equals(matcher.group(3))) {
					problems.add(where + ": snippet " + source + "#" + tag + " differs from its source: "
							+ firstDifference(expected, actual, language, matcher.group(3)));
				}
				String block = "<!-- snippet: " + source + "#" + tag + " -->\n```" + language + "\n" + expected
						+ "```\n<!-- /snippet -->";
				matcher.appendReplacement(rewritten, Matcher.quoteReplacement(block));
			}
			matcher.appendTail(rewritten);
			if (matched != markers) {
				problems.add(root.relativize(markdown) + ": " + (markers - matched)
						+ " snippet marker(s) without a fenced code block before <!-- /snippet -->");
			}
			if (this.update && !rewritten.toString().equals(Files.readString(markdown))) {
				Files.writeString(markdown, rewritten.toString());
			}
		}
		assertThat(snippets).as("snippets found under " + this.root).isPositive();
		if (!this.update) {
			assertThat(problems)
				.as("Markdown code that differs from its source (run the docs-snippets tests with "
						+ "-Dsnippets.update=true to rewrite the Markdown from the sources)")
				.isEmpty();
		}
	}

	@Test
	void everyJavaOrKotlinBlockIsASnippet() throws IOException {
		List<String> problems = new ArrayList<>();
		for (Path markdown : markdownFiles()) {
			List<String> lines = Files.readAllLines(markdown);
			boolean inSnippet = false;
			boolean inFence = false;
			String previous = "";
			for (int i = 0; i < lines.size(); i++) {
				String line = lines.get(i);
				if (line.startsWith("<!-- snippet: ")) {
					inSnippet = true;
				}
				else if (line.equals("<!-- /snippet -->")) {
					inSnippet = false;
				}
				else if (line.startsWith("```")) {
					if (!inFence && !inSnippet && CODE_FENCE.matcher(line).matches()
							&& !previous.startsWith("<!-- not compiled: ")) {
						problems.add(root.relativize(markdown) + ":" + (i + 1)
								+ ": a Java or Kotlin block that is not a snippet (mark it <!-- snippet: path#tag -->, "
								+ "or <!-- not compiled: why --> for another library's code)");
					}
					inFence = !inFence;
				}
				if (!line.isBlank()) {
					previous = line.trim();
				}
			}
		}
		assertThat(problems).isEmpty();
	}

	@Test
	void everyPropertyNamedInTheGuideExists() throws IOException {
		Set<String> known = knownProperties();
		Set<String> unknown = new TreeSet<>();
		for (Path markdown : markdownFiles()) {
			String text = Files.readString(markdown);
			Matcher matcher = PROPERTY.matcher(text);
			while (matcher.find()) {
				String name = matcher.group(1);
				if (!known.contains(name)) {
					unknown.add(name + " (" + root.relativize(markdown) + ":" + lineOf(text, matcher.start()) + ")");
				}
			}
			for (String name : yamlProperties(text)) {
				if (!known.contains(name)) {
					unknown.add(name + " (YAML in " + root.relativize(markdown) + ")");
				}
			}
		}
		assertThat(known).contains("redis-lock.wait-time");
		assertThat(unknown).as("properties named in the guide that the starter does not have").isEmpty();
	}

	@Test
	void everyRelativeLinkResolves() throws IOException {
		List<String> problems = new ArrayList<>();
		for (Path markdown : markdownFiles()) {
			String text = withoutCode(Files.readString(markdown));
			Matcher links = LINK.matcher(text);
			while (links.find()) {
				String link = links.group(1);
				if (link.matches("^[a-z]+:.*")) {
					continue;
				}
				int hash = link.indexOf('#');
				String path = (hash < 0) ? link : link.substring(0, hash);
				Path target = path.isEmpty() ? markdown : markdown.getParent().resolve(path).normalize();
				if (!Files.exists(target)) {
					problems.add(this.root.relativize(markdown) + ": " + link + ": no such file");
				}
				else if (hash >= 0 && target.toString().endsWith(".md")
						&& !anchors(Files.readString(target)).contains(link.substring(hash + 1))) {
					problems.add(this.root.relativize(markdown) + ": " + link + ": no such heading");
				}
			}
		}
		assertThat(problems).as("links in the guide that lead nowhere").isEmpty();
	}

	@Test
	void noTableCellOfAUserPageIsLong() throws IOException {
		List<String> problems = new ArrayList<>();
		for (Path markdown : userPages()) {
			List<String> lines = Files.readAllLines(markdown);
			boolean inFence = false;
			for (int i = 0; i < lines.size(); i++) {
				String line = lines.get(i);
				if (line.startsWith("```")) {
					inFence = !inFence;
				}
				else if (!inFence && line.startsWith("|") && !beingRewritten(markdown, lines, i)) {
					for (String cell : TABLE_CELL_SEPARATOR.split(line)) {
						if (cell.strip().length() > MAX_CELL) {
							problems.add(this.root.relativize(markdown) + ":" + (i + 1) + ": a table cell of "
									+ cell.strip().length() + " characters (at most " + MAX_CELL
									+ "): keep the cell to a short statement and put the detail in a paragraph or a "
									+ "list below the table; starts \"" + cell.strip().substring(0, 60) + "\"");
						}
					}
				}
			}
		}
		assertThat(problems).as("long table cells on user pages").isEmpty();
	}

	@Test
	void noUserPageNamesATestClass() throws IOException {
		Set<String> testClasses = testClassNames();
		assertThat(testClasses).as("test classes found under " + this.root).contains("DocsSnippetsTests");
		List<String> problems = new ArrayList<>();
		for (Path markdown : userPages()) {
			List<String> lines = Files.readAllLines(markdown);
			for (int i = 0; i < lines.size(); i++) {
				if (beingRewritten(markdown, lines, i)) {
					continue;
				}
				Matcher words = TEST_CLASS_LIKE.matcher(lines.get(i));
				while (words.find()) {
					if (testClasses.contains(words.group())) {
						problems.add(this.root.relativize(markdown) + ":" + (i + 1) + ": names the test class "
								+ words.group() + ": state the behaviour it shows instead; which test covers what "
								+ "goes on a page under docs/design/ (e.g. docs/design/failure-tests.md)");
					}
				}
			}
		}
		assertThat(problems).as("test classes named on user pages").isEmpty();
	}

	@Test
	void noUserPageTellsHowRunsWentOrHowTheProjectGotThere() throws IOException {
		List<String> problems = new ArrayList<>();
		for (Path markdown : userPages()) {
			List<String> lines = Files.readAllLines(markdown);
			boolean inFence = false;
			for (int i = 0; i < lines.size(); i++) {
				String line = lines.get(i);
				if (line.strip().startsWith("```")) {
					inFence = !inFence;
					continue;
				}
				if (inFence || beingRewritten(markdown, lines, i)) {
					continue;
				}
				for (LabNotebook phrase : LAB_NOTEBOOK) {
					Matcher found = phrase.pattern().matcher(line);
					if (found.find()) {
						problems.add(this.root.relativize(markdown) + ":" + (i + 1) + ": \"" + found.group() + "\": "
								+ phrase.why() + "; a user page says what to write, what happens and what to tune "
								+ "(run figures: docs/performance.md, stated plainly; history: docs/design/history.md)");
					}
				}
			}
		}
		assertThat(problems).as("lab-notebook phrases on user pages").isEmpty();
	}

	@Test
	void everyLoggerCategoryAUserMayTuneIsListedOnTheMonitoringPage() throws IOException {
		Set<String> categories = new TreeSet<>();
		Path sources = this.root.resolve("lock-spring-boot-autoconfigure/src/main/java");
		try (Stream<Path> walk = Files.walk(sources)) {
			for (Path source : walk.filter((path) -> path.toString().endsWith(".java")).toList()) {
				String code = Files.readString(source);
				if (code.contains("LogFactory")) {
					Matcher names = LOGGER_CATEGORY.matcher(code);
					while (names.find()) {
						categories.add((names.group(1) != null) ? names.group(1) : names.group(2));
					}
				}
			}
		}
		assertThat(categories).as("logger categories found under " + sources).contains("connection", "lease");
		String monitoring = Files.readString(this.root.resolve("docs/monitoring.md"));
		List<String> missing = categories.stream()
			.filter((category) -> !monitoring.contains("\n| `" + category + "` |"))
			.map((category) -> "io.github.redislock." + category)
			.toList();
		assertThat(missing)
			.as("logger categories the engine logs to that docs/monitoring.md's Logs table does not "
					+ "list (a row \"| `<category>` | level | what it logs |\")")
			.isEmpty();
	}

	@Test
	void theMonitoringPagesEndpointExampleShowsAReadLockAndASemaphoreUnderKinds() throws IOException {
		String monitoring = Files.readString(this.root.resolve("docs/monitoring.md"));
		Matcher json = Pattern.compile("(?ms)^```json\\n(.*?)^```").matcher(monitoring);
		boolean shown = false;
		while (json.find()) {
			String example = json.group(1);
			int kinds = example.indexOf("\"kinds\"");
			shown |= kinds >= 0 && example.indexOf("\"mode\": \"readWrite\"", kinds) >= 0
					&& example.indexOf("\"mode\": \"semaphore\"", kinds) >= 0;
		}
		assertThat(shown)
			.as("docs/monitoring.md has a GET /actuator/locks/{name} example whose \"kinds\" shows a read lock "
					+ "(\"mode\": \"readWrite\") and a semaphore (\"mode\": \"semaphore\")")
			.isTrue();
	}

	@Test
	void everyMavenDependencyOfAUserPageHasAVersionOrABom() throws IOException {
		List<String> problems = new ArrayList<>();
		for (Path markdown : userPages()) {
			String text = Files.readString(markdown);
			Matcher blocks = XML_BLOCK.matcher(text);
			boolean bomImported = false;
			while (blocks.find()) {
				Matcher dependencies = DEPENDENCY.matcher(blocks.group(1));
				while (dependencies.find()) {
					String dependency = dependencies.group(1);
					if (!dependency.contains("<groupId>io.github.redislock</groupId>")) {
						continue;
					}
					if (dependency.contains("<artifactId>lock-bom</artifactId>")
							&& dependency.contains("<scope>import</scope>")) {
						bomImported = true;
					}
					if (!dependency.contains("<version>") && !bomImported) {
						problems.add(this.root.relativize(markdown) + ":"
								+ lineOf(text, blocks.start(1) + dependencies.start()) + ": a dependency on "
								+ artifactId(dependency) + " without <version>, and no lock-bom import above it on "
								+ "this page (Maven fails: 'dependencies.dependency.version' is missing): add "
								+ "<version>, or show the lock-bom import (<type>pom</type>, <scope>import</scope>) "
								+ "earlier on the page");
					}
				}
			}
		}
		assertThat(problems).as("Maven dependencies that do not work when pasted").isEmpty();
	}

	@Test
	void everyGradleBlockOfAUserPageThatDeclaresDependenciesHasRepositoriesAndVersions() throws IOException {
		List<String> problems = new ArrayList<>();
		for (Path markdown : userPages()) {
			String text = Files.readString(markdown);
			Matcher blocks = GRADLE_BLOCK.matcher(text);
			while (blocks.find()) {
				String block = blocks.group(2);
				if (block.contains("dependencies {") && !block.contains("repositories {")) {
					problems.add(this.root.relativize(markdown) + ":" + lineOf(text, blocks.start()) + ": a "
							+ blocks.group(1) + " block that declares dependencies without repositories: add "
							+ "\"repositories { mavenCentral() }\" so that it works when pasted");
				}
				Matcher unversioned = GRADLE_UNVERSIONED.matcher(block);
				if (unversioned.find() && !block.contains("platform(") && !block.contains("platform '")) {
					problems.add(this.root.relativize(markdown) + ":" + lineOf(text, blocks.start()) + ": a "
							+ blocks.group(1) + " block with io.github.redislock:" + unversioned.group(1)
							+ " without a version and without the lock-bom platform: add "
							+ "implementation(platform(\"io.github.redislock:lock-bom:<version>\")) or a version");
				}
			}
		}
		assertThat(problems).as("Gradle blocks that do not work when pasted").isEmpty();
	}

	@Test
	void everySnippetOfAUserPageListsItsImports() throws IOException {
		List<String> problems = new ArrayList<>();
		for (Path markdown : userPages()) {
			String text = Files.readString(markdown);
			List<String> lines = List.of(text.split("\n", -1));
			Matcher snippets = SNIPPET.matcher(text);
			while (snippets.find()) {
				int line = lineOf(text, snippets.start());
				if (beingRewritten(markdown, lines, line - 1)
						|| !Files.isRegularFile(this.root.resolve(snippets.group(1)))) {
					continue;
				}
				List<String> imports = importsUsed(snippets.group(1), snippets.group(4));
				if (imports.isEmpty()) {
					continue;
				}
				String expected = "Imports: "
						+ String.join(", ", imports.stream().map((name) -> "`" + name + "`").toList()) + ".";
				int end = lineOf(text, snippets.end());
				String next = (end < lines.size()) ? lines.get(end) : "";
				if (!next.equals(expected)) {
					problems.add(this.root.relativize(markdown) + ":" + (end + 1) + ": snippet " + snippets.group(1)
							+ "#" + snippets.group(2)
							+ (next.startsWith("Imports: ") ? " lists other imports than it uses"
									: " does not list its imports")
							+ ": put this line right under <!-- /snippet -->, so that a pasted snippet compiles:\n    "
							+ expected);
				}
			}
		}
		assertThat(problems).as("snippets whose imports a user cannot see").isEmpty();
	}

	/**
	 * The imports of a snippet's source that its code uses: a type named in it, or a
	 * static method called, comments left out.
	 */
	private List<String> importsUsed(String source, String snippet) throws IOException {
		String code = snippet.replaceAll("//[^\n]*", "");
		Set<String> used = new TreeSet<>();
		Matcher imports = IMPORT.matcher(Files.readString(this.root.resolve(source)));
		while (imports.find()) {
			String name = imports.group(2);
			String simple = Pattern.quote(name.substring(name.lastIndexOf('.') + 1));
			String use = (imports.group(1) != null) ? "(?<![\\w.])" + simple + "\\s*\\("
					: "(?<![\\w.])" + simple + "\\b";
			if (Pattern.compile(use).matcher(code).find()) {
				used.add(name);
			}
		}
		return new ArrayList<>(used);
	}

	/** Whether a line of a page is in a part {@link #BEING_REWRITTEN}. */
	private boolean beingRewritten(Path markdown, List<String> lines, int index) {
		String page = this.root.relativize(markdown).toString().replace('\\', '/');
		if (BEING_REWRITTEN.contains(page)) {
			return true;
		}
		for (int i = Math.min(index, lines.size() - 1); i >= 0; i--) {
			Matcher heading = HEADING.matcher(lines.get(i));
			if (heading.matches()) {
				return BEING_REWRITTEN.contains(page + "#" + anchors(lines.get(i)).iterator().next());
			}
		}
		return false;
	}

	private static String artifactId(String dependency) {
		Matcher artifact = Pattern.compile("<artifactId>([^<]+)</artifactId>").matcher(dependency);
		return artifact.find() ? artifact.group(1) : "(no artifactId)";
	}

	/**
	 * The pages a user reads: those {@link #markdownFiles()} checks, without the ones
	 * written for contributors, where test classes, run figures and history belong.
	 */
	private List<Path> userPages() throws IOException {
		List<Path> excluded = CONTRIBUTOR_PAGES.stream().map(this.root::resolve).toList();
		return markdownFiles().stream().filter((page) -> !excluded.contains(page)).toList();
	}

	/**
	 * Simple names of the test classes of every module, e.g. {@code DocsSnippetsTests}.
	 */
	private Set<String> testClassNames() throws IOException {
		Set<String> names = new TreeSet<>();
		Files.walkFileTree(this.root, new SimpleFileVisitor<>() {

			@Override
			public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
				String name = (dir.getFileName() != null) ? dir.getFileName().toString() : "";
				boolean skip = !dir.equals(DocsSnippetsTests.this.root)
						&& (name.startsWith(".") || name.equals("target") || name.equals("node_modules"));
				return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
			}

			@Override
			public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
				String name = file.getFileName().toString().replaceFirst("\\.(java|kt)$", "");
				String path = file.toString().replace('\\', '/');
				if (!name.equals(file.getFileName().toString()) && path.matches(".*/src/test[^/]*/.*")
						&& TEST_CLASS_LIKE.matcher(name).matches()) {
					names.add(name);
				}
				return FileVisitResult.CONTINUE;
			}

		});
		return names;
	}

	private static String withoutCode(String markdown) {
		return markdown.replaceAll("(?s)```.*?```", "");
	}

	/** GitHub's anchors of a page's headings. */
	private static Set<String> anchors(String markdown) {
		Set<String> anchors = new TreeSet<>();
		Matcher headings = Pattern.compile("(?m)^#+ (.*)$").matcher(withoutCode(markdown));
		while (headings.find()) {
			// GitHub's anchor is made of the rendered text: a link in a heading counts by
			// its text
			anchors.add(headings.group(1)
				.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
				.strip()
				.toLowerCase(Locale.ROOT)
				.replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
				.replace(' ', '-'));
		}
		return anchors;
	}

	private List<Path> markdownFiles() throws IOException {
		List<Path> files = new ArrayList<>();
		files.add(this.root.resolve("README.md"));
		files.add(this.root.resolve("CONTRIBUTING.md"));
		Path docs = this.root.resolve("docs");
		Path design = docs.resolve("design");
		try (Stream<Path> walk = Files.walk(docs)) {
			walk.filter((path) -> path.toString().endsWith(".md") && !path.startsWith(design))
				.sorted()
				.forEach(files::add);
		}
		return files;
	}

	private String region(String source, String tag) {
		Path file = this.root.resolve(source);
		if (!Files.isRegularFile(file)) {
			throw new IllegalArgumentException("no file " + file);
		}
		List<String> lines;
		try {
			lines = Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		int start = lines.indexOf(lines.stream()
			.filter((l) -> l.trim().equals("// tag::" + tag + "[]"))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("no line '// tag::" + tag + "[]' in " + source)));
		List<String> body = new ArrayList<>();
		for (int i = start + 1; i < lines.size(); i++) {
			String line = lines.get(i);
			if (line.trim().equals("// end::" + tag + "[]")) {
				return unindent(body);
			}
			if (!TAG_LINE.matcher(line).matches()) {
				body.add(expandTabs(line).stripTrailing());
			}
		}
		throw new IllegalArgumentException("no line '// end::" + tag + "[]' in " + source);
	}

	private static String expandTabs(String line) {
		int i = 0;
		StringBuilder indent = new StringBuilder();
		while (i < line.length() && (line.charAt(i) == '\t' || line.charAt(i) == ' ')) {
			indent.append(line.charAt(i) == '\t' ? "    " : " ");
			i++;
		}
		return indent + line.substring(i);
	}

	private static String unindent(List<String> lines) {
		int indent = lines.stream()
			.filter((line) -> !line.isBlank())
			.mapToInt((line) -> line.length() - line.stripLeading().length())
			.min()
			.orElse(0);
		StringBuilder text = new StringBuilder();
		for (String line : lines) {
			text.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
		}
		return text.toString();
	}

	private static String firstDifference(String expected, String actual, String language, String actualLanguage) {
		if (!language.equals(actualLanguage)) {
			return "the block is marked ```" + actualLanguage + ", the source is " + language;
		}
		String[] want = expected.split("\n", -1);
		String[] have = actual.split("\n", -1);
		for (int i = 0; i < Math.max(want.length, have.length); i++) {
			String w = (i < want.length) ? want[i] : "(nothing)";
			String h = (i < have.length) ? have[i] : "(nothing)";
			if (!w.equals(h)) {
				return "line " + (i + 1) + " of the block is\n    " + h + "\n  but the source has\n    " + w;
			}
		}
		return "they differ in whitespace";
	}

	private static int lineOf(String text, int offset) {
		int line = 1;
		for (int i = 0; i < offset; i++) {
			if (text.charAt(i) == '\n') {
				line++;
			}
		}
		return line;
	}

	/** Dotted names of the keys under {@code redis-lock:} in the YAML blocks. */
	private static List<String> yamlProperties(String markdown) {
		List<String> names = new ArrayList<>();
		Matcher blocks = Pattern.compile("```ya?ml\\n(.*?)```", Pattern.DOTALL).matcher(markdown);
		while (blocks.find()) {
			List<String> path = new ArrayList<>();
			List<Integer> indents = new ArrayList<>();
			for (String line : blocks.group(1).split("\n")) {
				String trimmed = line.strip();
				if (trimmed.isEmpty() || trimmed.startsWith("#") || trimmed.startsWith("-") || !trimmed.contains(":")) {
					continue;
				}
				int indent = line.length() - line.stripLeading().length();
				while (!indents.isEmpty() && indents.get(indents.size() - 1) >= indent) {
					indents.remove(indents.size() - 1);
					path.remove(path.size() - 1);
				}
				String key = trimmed.substring(0, trimmed.indexOf(':')).strip();
				String value = trimmed.substring(trimmed.indexOf(':') + 1).strip();
				path.add(key);
				indents.add(indent);
				if (!value.isEmpty() && path.get(0).equals("redis-lock")) {
					names.add(String.join(".", path));
				}
			}
		}
		return names;
	}

	/** A phrase that does not belong on a user page, and why. */
	private record LabNotebook(Pattern pattern, String why) {

		LabNotebook(String regex, String why) {
			this(Pattern.compile(regex), why);
		}

	}

	/** Property and group names of the starter's configuration metadata. */
	private static Set<String> knownProperties() throws IOException {
		Set<String> names = new TreeSet<>();
		ClassLoader loader = DocsSnippetsTests.class.getClassLoader();
		for (String resource : List.of("META-INF/spring-configuration-metadata.json",
				"META-INF/additional-spring-configuration-metadata.json")) {
			Enumeration<URL> urls = loader.getResources(resource);
			for (URL url : Collections.list(urls)) {
				try (InputStream in = url.openStream()) {
					Matcher matcher = METADATA_NAME.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
					while (matcher.find()) {
						names.add(matcher.group(1));
					}
				}
			}
		}
		return names;
	}

}
