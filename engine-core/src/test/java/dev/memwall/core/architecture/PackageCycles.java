package dev.memwall.core.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;

/**
 * The check that a module's packages form no cycle (ArchUnit's slices, one slice per package), for
 * each module's own test: a dependency cycle between packages means neither can be understood, tested
 * or moved without the other. Main classes only.
 */
public final class PackageCycles {
  private PackageCycles() {}

  /**
   * Fails, naming the cycles and the dependencies that close them, when the packages under
   * {@code rootPackage} depend on each other in a cycle.
   *
   * @param tolerated classes that packages may depend on although they close a known cycle, to be
   *     moved: a new cycle still fails
   */
  public static void assertNone(String rootPackage, Class<?>... tolerated) {
    JavaClasses classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages(rootPackage);
    DescribedPredicate<JavaClass> known = belongToAnyOf(tolerated);
    SlicesRuleDefinition.slices().matching("dev.memwall.(**)").should().beFreeOfCycles()
        .ignoreDependency(DescribedPredicate.alwaysTrue(), known)
        .check(classes);
  }
}
