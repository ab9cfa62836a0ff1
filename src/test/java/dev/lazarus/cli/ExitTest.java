package dev.lazarus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ExitTest {

    @Test
    void eachKindOfAnswerHasItsOwnExitCode() {
        assertEquals(Exit.OK, Exit.forStatus(200));
        assertEquals(Exit.OK, Exit.forStatus(202));
        assertEquals(Exit.REFUSED, Exit.forStatus(400));
        assertEquals(Exit.REFUSED, Exit.forStatus(409));
        assertEquals(Exit.REFUSED, Exit.forStatus(413));
        assertEquals(Exit.NOT_FOUND, Exit.forStatus(404));
        assertEquals(Exit.NOT_ALLOWED, Exit.forStatus(401));
        assertEquals(Exit.NOT_ALLOWED, Exit.forStatus(403));
        assertEquals(Exit.SERVER, Exit.forStatus(500));
        assertEquals(Exit.SERVER, Exit.forStatus(503));
        assertEquals(Exit.SERVER, Exit.forStatus(302), "a redirect the client does not follow is not success");
    }

    @Test
    void theExitCodesAreTheOnesTheHelpAndTheGuideName() {
        assertEquals(0, Exit.OK);
        assertEquals(1, Exit.REFUSED);
        assertEquals(2, Exit.USAGE);
        assertEquals(3, Exit.NOT_FOUND);
        assertEquals(4, Exit.NOT_ALLOWED);
        assertEquals(5, Exit.SERVER);
    }

    @Test
    void aProblemIsOneLineOfItsStatusTitleAndDetail() {
        assertEquals("404 Not Found: no run 42", Api.problem(404, "{\"type\":\"about:blank\",\"title\":\"Not Found\",\"status\":404,\"detail\":\"no run 42\"}"));
        assertEquals("403 Forbidden", Api.problem(403, "{\"title\":\"Forbidden\"}"));
        assertEquals("400 reason must be one of [A, B]", Api.problem(400, "{\"detail\":\"reason must be one of [A, B]\"}"));
        assertEquals("409 Conflict: it is\u0020closed already", Api.problem(409, "{\"title\":\"Conflict\",\"detail\":\"it is\\nclosed already\"}"));
    }

    @Test
    void anAnswerThatIsNoProblemIsShownByItsStartOrSaidToBeEmpty() {
        assertEquals("502: <html> Bad Gateway </html>", Api.problem(502, "<html>\nBad Gateway\n</html>"));
        assertEquals("500 (no explanation from the server)", Api.problem(500, ""));
        assertEquals("500: [1,2]", Api.problem(500, "[1,2]"));
    }
}
