package dev.lazarus.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The command-line client and the server share no code, either way: the client knows the API only by its paths and
 * fields, as a script would (so its jar carries nothing of the server), and the server has no use for picocli, which
 * is on its compile path only because the client is built in the same project.
 */
class CommandLineDependenciesTest {

    @Test
    void theClientUsesNothingButTheJdkPicocliAndJsonP() {
        Path compiled = Path.of("target", "cli-classes", "dev", "lazarus", "cli");
        assertTrue(Files.isDirectory(compiled), compiled + " is compiled before the tests (maven-compiler-plugin, cli-compile)");
        JavaClasses client = new ClassFileImporter().importPath(compiled);
        assertTrue(client.size() > 10, "the client's classes were found: " + client.size());
        classes().should().onlyDependOnClassesThat().resideInAnyPackage("java..", "picocli..", "jakarta.json..", "dev.lazarus.cli..")
                .check(client);
    }

    @Test
    void theServerDoesNotUsePicocli() {
        JavaClasses server = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("dev.lazarus");
        noClasses().should().dependOnClassesThat().resideInAPackage("picocli..").check(server);
    }
}
