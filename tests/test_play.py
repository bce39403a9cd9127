"""``tower play`` and the terminal UI, driven by scripted input."""

from __future__ import annotations

from click.testing import CliRunner

from tower.cli import cli
from tower.marrakesh import Game, GameConfig
from tower.marrakesh.ui import QUIT, parse_choice, render


def _run(args: list[str], text: str):
    return CliRunner().invoke(cli, ["play", *args], input=text)


def test_a_few_moves_then_quit():
    result = _run(["--players", "2", "--seed", "1"], "1\n2\nq\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("Your choice") == 3
    assert "You quit the game." in result.output
    assert "Pending: player 0 decides 'track'" in result.output


def test_invalid_input_reprompts_and_action_text_is_accepted():
    result = _run(["--players", "2", "--seed", "1"], "zzz\n99\ncolour:gray\n")
    assert result.exit_code == 0, result.output
    assert "'zzz' is not one of the legal actions" in result.output
    assert "'99' is not one of the legal actions" in result.output
    # colour:gray (of green, gray, red) was legal and taken: the next prompt offers the
    # two other keshis only.
    last_menu = result.output.split("Pending:")[-1]
    assert "1) put your keshi from the oasis track on it: a green keshi  [colour:green]" in (
        last_menu
    )
    assert "2) put your keshi from the oasis track on it: a red keshi  [colour:red]" in last_menu
    assert "colour:gray" not in last_menu
    assert "End of input: the game is left unfinished." in result.output


def test_whole_game_against_random_agents():
    result = _run(["--players", "2", "--seed", "3", "--agents", "random"], "1\n" * 2000)
    assert result.exit_code == 0, result.output
    assert "Final scores: P0 " in result.output and "Winner(s): P" in result.output
    assert "The tower throw: out came" in result.output


def test_bad_seat_is_a_usage_error():
    result = _run(["--players", "2", "--seat", "2"], "")
    assert result.exit_code == 2 and "--seat" in result.output


def test_board_hides_other_screens_and_parse_choice():
    state = Game(GameConfig(players=3)).new_initial_state(seed=2)
    board = render(state, viewer=1)
    assert board.count("12 hidden keshis") == 2 and "P1 (you)" in board
    legal = state.legal_actions()
    assert parse_choice(str(legal[-1]), legal) == legal[-1]
    assert parse_choice(" Q ", legal) == QUIT
    assert parse_choice("0", legal) is None and parse_choice("colour:nope", legal) is None


def test_selection_colours_in_any_order():
    from tower.marrakesh import Action

    legal = [Action.parse("select:green+gray+red"), Action.parse("select:green+gray+white")]
    assert parse_choice("select:red+green+gray", legal) == legal[0]
    assert parse_choice("select:red+green+blue", legal) is None
