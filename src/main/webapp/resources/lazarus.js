// The admin pages' only script. The Content-Security-Policy (SecurityHeaders) allows no inline script, so a button
// that asks before it acts says what to ask in a data-confirm attribute (text, escaped like any attribute), and this
// asks it. Without script the buttons act without asking; every action is checked again on the server.
document.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('[data-confirm]') : null;
    if (button && !window.confirm(button.getAttribute('data-confirm'))) {
        event.preventDefault();
    }
});
