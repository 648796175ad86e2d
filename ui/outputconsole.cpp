// SPDX-License-Identifier: MIT
#include "outputconsole.h"

#include "appearance.h"
#include "core/formatting.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>

#include <QToolButton>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

QColor stderrColour(const QPalette &palette)
{
    return palette.color(QPalette::Base).lightnessF() < 0.5 ? QColor(0xff, 0x7b, 0x72)
                                                            : QColor(0xc0, 0x1c, 0x28);
}

// Inserts `text` in `format`, with each mask the daemon put in place of a secret's value ([secret:NAME])
// marked, so that a reader sees at once that something was there and what it was.
void insertMarkingMasks(QTextCursor &cursor, const QString &text, const QTextCharFormat &format,
                        const QPalette &palette)
{
    static const QRegularExpression mask(QStringLiteral("\\[secret:([A-Za-z_][A-Za-z0-9_]*)\\]"));
    qsizetype at = 0;
    for (auto it = mask.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        cursor.insertText(text.mid(at, match.capturedStart() - at), format);
        QTextCharFormat marked = format;
        marked.setForeground(palette.color(QPalette::HighlightedText));
        marked.setBackground(palette.color(QPalette::Highlight));
        marked.setToolTip(
            OutputConsole::tr("The value of secret %1, masked by Cordon").arg(match.captured(1)));
        cursor.insertText(match.captured(), marked);
        at = match.capturedEnd();
    }
    cursor.insertText(text.mid(at), format);
}

} // namespace

OutputConsole::OutputConsole(QWidget *parent)
    : QWidget(parent), m_view(new QPlainTextEdit(this)), m_input(new QLineEdit(this)),
      m_send(new QToolButton(this)), m_eof(new QToolButton(this))
{
    m_view->setReadOnly(true);
    m_view->setFont(Appearance::fixedFont());
    connect(Appearance::notifier(), &AppearanceNotifier::fontsChanged, m_view,
            [this] { m_view->setFont(Appearance::fixedFont()); });
    m_view->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_view->setAccessibleName(tr("Run output"));
    m_view->setPlaceholderText(
        tr("Output of the program appears here. Run the code with Ctrl+Return or F5."));
    m_view->setFrameShape(QFrame::NoFrame);
    m_view->setUndoRedoEnabled(false);

    m_input->setAccessibleName(tr("Program input"));
    m_input->setPlaceholderText(tr("Input for the running program: type a line and press Enter"));
    m_input->setClearButtonEnabled(true);
    m_send->setText(tr("Send"));
    m_send->setAccessibleName(tr("Send the line to the program"));
    m_eof->setText(tr("End input"));
    m_eof->setToolTip(tr("Close the program's input (like Ctrl+D in a terminal)"));
    m_eof->setAccessibleName(tr("End the program's input"));
    connect(m_input, &QLineEdit::returnPressed, this, &OutputConsole::submitInput);
    connect(m_send, &QToolButton::clicked, this, &OutputConsole::submitInput);
    connect(m_eof, &QToolButton::clicked, this, [this] {
        setInputOpen(false);
        Q_EMIT endOfInputRequested();
    });

    auto *inputRow = new QHBoxLayout;
    inputRow->setContentsMargins(6, 4, 6, 4);
    inputRow->setSpacing(6);
    auto *prompt = new QLabel(tr("stdin"), this);
    prompt->setBuddy(m_input);
    inputRow->addWidget(prompt);
    inputRow->addWidget(m_input, 1);
    inputRow->addWidget(m_send);
    inputRow->addWidget(m_eof);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_view, 1);
    layout->addLayout(inputRow);
    setInputOpen(false);

    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(FlushIntervalMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &OutputConsole::flush);
}

void OutputConsole::clear()
{
    m_pending.clear();
    m_flushTimer.stop();
    m_view->clear();
    m_shownBytes = 0;
    m_droppedBytes = 0;
    m_stdoutDecoder.resetState();
    m_stderrDecoder.resetState();
}

void OutputConsole::append(Stream stream, const QByteArray &bytes)
{
    if (bytes.isEmpty())
        return;
    if (m_shownBytes + bytes.size() > MaxShownBytes) {
        const qsizetype room = qMax<qsizetype>(0, MaxShownBytes - m_shownBytes);
        m_droppedBytes += bytes.size() - room;
        if (room == 0)
            return;
        append(stream, bytes.left(room));
        return;
    }
    m_shownBytes += bytes.size();
    QString text = stream == Stream::Stderr ? m_stderrDecoder.decode(bytes) : m_stdoutDecoder.decode(bytes);
    if (!m_pending.isEmpty() && m_pending.last().stream == stream)
        m_pending.last().text += text;
    else
        m_pending.append({stream, std::move(text)});
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void OutputConsole::appendNote(const QString &text)
{
    // A note starts on its own line, after whatever is still waiting to be shown.
    m_pending.append({Stream::Note, text});
    flush();
}

void OutputConsole::finishRun(const QString &runId)
{
    // Bytes held back by a decoder at the end of a stream were not valid UTF-8; show them as replacement
    // characters rather than dropping them silently.
    for (QStringDecoder *decoder : {&m_stdoutDecoder, &m_stderrDecoder}) {
        const QString rest = decoder->decode(QByteArray());
        if (!rest.isEmpty())
            m_pending.append({decoder == &m_stderrDecoder ? Stream::Stderr : Stream::Stdout, rest});
    }
    if (m_droppedBytes > 0)
        m_pending.append(
            {Stream::Note, tr("%1 more output is not shown here; `cordon logs %2` prints all that the daemon "
                              "kept.")
                               .arg(Format::bytes(m_droppedBytes), runId)});
    flush();
    setInputOpen(false);
}

void OutputConsole::setInputOpen(bool open)
{
    m_input->setEnabled(open);
    m_send->setEnabled(open);
    m_eof->setEnabled(open);
}

QString OutputConsole::plainText() const
{
    QString text = m_view->toPlainText();
    for (const Pending &pending : m_pending)
        text += pending.text;
    return text;
}

void OutputConsole::flush()
{
    QScrollBar *bar = m_view->verticalScrollBar();
    // Follow the output only when the user has not scrolled up to read something.
    const bool atEnd = bar->value() >= bar->maximum() - 4;
    QTextCursor cursor(m_view->document());
    cursor.movePosition(QTextCursor::End);
    cursor.beginEditBlock();
    const QPalette pal = palette();
    for (const Pending &pending : std::as_const(m_pending)) {
        QTextCharFormat format;
        if (pending.stream == Stream::Stderr) {
            format.setForeground(stderrColour(pal));
        } else if (pending.stream == Stream::Note) {
            format.setForeground(pal.color(QPalette::Disabled, QPalette::Text));
            format.setFontItalic(true);
            if (!m_view->document()->lastBlock().text().isEmpty())
                cursor.insertText(QStringLiteral("\n"), QTextCharFormat());
            cursor.insertText(pending.text + QLatin1Char('\n'), format);
            cursor.setCharFormat(QTextCharFormat());
            continue;
        } else {
            format.setForeground(pal.color(QPalette::Text));
        }
        insertMarkingMasks(cursor, pending.text, format, pal);
    }
    cursor.endEditBlock();
    m_pending.clear();
    if (atEnd)
        bar->setValue(bar->maximum());
}

void OutputConsole::submitInput()
{
    if (!m_input->isEnabled())
        return;
    const QByteArray line = m_input->text().toUtf8() + '\n';
    m_input->clear();
    Q_EMIT inputSubmitted(line);
}

} // namespace Cordon::Ui
