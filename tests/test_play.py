"""``tower play`` and the terminal UI, driven by scripted input (the whole game through a
pseudo-terminal is tests/test_play_terminal.py)."""

from __future__ import annotations

from click.testing import CliRunner

from tower.cli import cli
from tower.marrakesh import Action, Game, GameConfig
from tower.marrakesh.ui import BOARD, HELP, QUIT, WIDTH, fit, parse_choice, plain, render


def _run(args: list[str], text: str):
    return CliRunner().invoke(cli, ["play", *args], input=text)


def _screen(args: list[str], text: str) -> str:
    """What ``tower play args`` shows for the typed ``text`` (it must exit normally)."""
    result = _run(args, text)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_few_moves_then_quit():
    out = _screen(["--players", "2", "--seed", "1"], "1\n2\nq\n")
    assert out.count("Your choice") == 3
    assert "You quit the game." in out
    assert "the tower model is marrakesh" in out  # the shipped distilled model by default
    assert "Now you decide: Setup: put the keshis you were dealt" in out
    # The green, then the red keshi: the gray one was left, taken for the player, said so.
    assert "Your only option, taken: put your keshi from the oasis track on it: a gray keshi." in (
        out
    )
    assert "P1 chose: turn their audience disc to its 2nd position" in out


def test_invalid_input_reprompts_and_help_explains():
    out = _screen(["--players", "2", "--seed", "1"], "zzz\n99\nhelp\nboard\n2\n")
    assert "'zzz' is not one of the options; type a number from the list." in out
    assert "'99' is not one of the options" in out
    assert "Each option says what it does" in out
    # help explains the decision on its own line (the board says it after "Now you decide").
    assert "\nSetup: put the keshis you were dealt, one at a time" in out
    assert out.count("== Marrakesh: season 1 of 3") == 2  # the board, and again on request
    # 2 (the gray keshi, of green, gray, red) was taken: the next menu offers the others.
    last_menu = out.split("Now you decide:")[-1]
    assert "1) put your keshi from the oasis track on it: a green keshi" in last_menu
    assert "2) put your keshi from the oasis track on it: a red keshi" in last_menu
    assert "gray" not in last_menu
    assert "End of input: the game is left unfinished." in out


def test_keshis_chosen_by_colours_and_codes():
    # Seed 1: three setup decisions, the disc, the provision tile, then the selection.
    answer = "1\n1\n1\n1\n"
    out = _screen(
        ["--players", "2", "--seed", "1"], answer + "red yellow pink green\nr y u\n1\nq\n"
    )
    assert "Behind your screen: green gray white black pink turquoise beige brown red yellow" in out
    assert "'red yellow pink green' is not 3 keshis from behind your screen" in out
    assert "P1 chooses 3 keshis behind the screen." in out
    assert "The tower throw: out came" in out
    assert "Now you decide: Send the assistant of your red keshi" in out
    assert "select" not in out and "220" not in out


def test_whole_game_against_random_agents():
    out = _screen(
        ["--players", "2", "--seed", "3", "--agents", "random", "--model", "baseline"],
        # A number at each decision; at the selection, the next 3 colours still behind the
        # screen (the others are refused and the next line is read).
        "1\ng a w\n1\nk p t\n1\ne n r\n1\ny u o\n" * 300,
    )
    assert "the tower model is baseline" in out
    assert "Final scores: P0 " in out and "Winner(s): P" in out
    assert "== Season 1 scoring ==" in out and "== Season 3 and final scoring ==" in out
    assert max(len(line) for line in out.splitlines()) <= WIDTH


def test_bad_seat_and_bad_model_are_errors():
    result = _run(["--players", "2", "--seat", "2"], "")
    assert result.exit_code == 2 and "--seat" in result.output
    result = _run(["--players", "2", "--model", "no-such-model.json"], "")
    assert result.exit_code != 0 and "no-such-model.json" in str(result.exception)


def test_board_hides_other_screens_fits_and_parse_choice():
    state = Game(GameConfig(players=3)).new_initial_state(seed=2)
    board = render(state, viewer=1)
    assert board.count("12 hidden keshis") == 2 and "P1 (you)" in board
    assert "jetty spaces taken: none" in " ".join(board.split()) and "False" not in board
    assert max(len(line) for line in board.splitlines()) <= WIDTH
    legal = state.legal_actions()
    assert parse_choice(str(legal[-1]), legal) == legal[-1]
    assert parse_choice(" Q ", legal) == QUIT
    assert parse_choice("help", legal) == HELP and parse_choice("board", legal) == BOARD
    assert parse_choice("0", legal) is None and parse_choice("colour:nope", legal) is None


def test_selection_colours_in_any_order_by_name_or_code():
    legal = [Action.parse("select:green+gray+red"), Action.parse("select:green+gray+white")]
    assert parse_choice("select:red+green+gray", legal) == legal[0]
    assert parse_choice("red green gray", legal) == legal[0]
    assert parse_choice("r g a", legal) == legal[0]
    assert parse_choice("w, gray, green", legal) == legal[1]
    assert parse_choice("select:red+green+blue", legal) is None
    assert parse_choice("red green", legal) is None and parse_choice("brigand", legal) is None


def test_plain_and_fit_write_python_values_as_words():
    assert plain("taken [False, True], dealer ['red', 'blue'], none []") == (
        "taken no, yes, dealer red, blue, none none"
    )
    assert plain("pawns inside brigand:neutral 2, turn's end; next throw neutral red") == (
        "pawns inside brigand 2, turn's end; next throw expert red"
    )
    lines = fit(["word " * 50])
    assert len(lines) == 3 and all(len(line) <= WIDTH for line in lines)
    assert lines[1].startswith("    word")


def test_every_module_fits_the_width_in_words():
    """The board with every module, at many points of a 4-player game, and every option
    and opponent's move: at most 100 columns, no action id, no Python value."""
    import re

    from tower.marrakesh import RandomAgent
    from tower.marrakesh.hooks import everything
    from tower.marrakesh.ui import format_options, play_terminal

    game = Game(GameConfig(players=4, modules=everything(4), ask_single=True))
    state = game.new_initial_state(seed=5)
    agents = [RandomAgent(k) for k in range(4)]
    shown: list[str] = []
    for k in range(400):
        if state.is_terminal():
            break
        cp = state.current_player
        if cp == -1:
            state.sample_chance()
            continue
        p = state.pending_players()[0] if cp == -2 else cp
        if k % 10 == 0:
            shown += [render(state, p), format_options(state.describe_actions(p))]
        state.apply(agents[p].step(state, p), player=p)
    # The rest of the game as the terminal shows it, with player 0 played by an agent too.
    rest = game.new_initial_state(seed=6)
    lines = iter(["1", "g a w", "1", "k p t", "1", "e n r", "1", "y u o"] * 300)
    assert play_terminal(rest, 0, agents, lambda: next(lines), shown.append)
    text = "\n".join(shown)
    assert "Desert towns on display" in text and "Walls & Guards" in text
    assert max(len(line) for line in text.splitlines()) <= WIDTH
    bad = re.findall(r".*(?:choice:|slot:|assistant:|\[|\]|\bTrue\b|\bFalse\b|neutral).*", text)
    assert not bad, bad[:3]
