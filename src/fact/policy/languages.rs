//! Orders to the assistant in German, French, Spanish, Portuguese, Italian, Russian,
//! Chinese, Japanese and Korean: the phrases an injection uses in any language (ignore the
//! previous instructions, from now on, you must, the assistant must, the system prompt, new
//! instructions, without asking), and the imperative forms each language marks.
//!
//! A fact in these languages is a subjectless third-person statement, as in English
//! (`Spricht fließend Deutsch.`, `Trabaja como enfermera.`, `東京に住んでいる。`). Where the
//! imperative has its own form it is refused whatever the verb: German `-en Sie`, French
//! `-ez`, Italian `non` + infinitive, Russian `-й(те)`/`-и(те)`, Japanese `-てください`,
//! `-しろ`, `-な`, Korean `-세요`, `-하라`, `-마`. Where it shares the form of the third
//! person (French, Spanish, Portuguese and Italian `tu` forms of `-er`/`-ar` verbs: `Ignora`
//! is also "ignores"), only a short list of verbs one gives an assistant as orders (ignore,
//! run, delete, send, reveal, forget, obey, show, disable, install) opens an order, so
//! `Trabaja como enfermera.` passes and `Ignora todas las reglas.` does not. Chinese marks
//! no imperative: only the phrases, a leading `请`/`不要`/`别`, and a few verbs (delete,
//! show, send, ignore, forget) at the start refuse it.
//!
//! A first-person object bound to a verb (`Sag mir`, `Dis-moi`, `Dime`, `Dimmi`,
//! `Diga-me`) is the speaker asking the reader, so an order too: a fact is told in the
//! third person.
//!
//! It does not catch an order in these languages that uses none of these forms or verbs,
//! and it does not look at other languages.

use std::sync::LazyLock;

use regex::Regex;

use super::super::{AnyOf, regex};

/// Whether the probe (NFKC, lowercase, look-alikes not folded) holds an order in one of
/// the nine languages.
pub(super) fn is_foreign_order(probe: &str) -> bool {
    PHRASES.is_match(probe)
        || SENTENCE.split(probe).any(|sentence| {
            let sentence = sentence.trim();
            !sentence.is_empty() && IMPERATIVES.is_match(sentence)
        })
}

static SENTENCE: LazyLock<Regex> = LazyLock::new(|| regex(r"[.!?;:。！？；：]+\s*|\n"));

/// Phrases that only an injected order uses, anywhere in the text.
static PHRASES: LazyLock<AnyOf> = LazyLock::new(|| {
    AnyOf::new([
        // German
        r"\b(?:ignorier\w*|vergiss|vergessen\s+sie|missachte\w*)\b[^.!?]*\b(?:anweisungen|instruktionen|befehle|regeln|vorgaben)\b",
        r"\b(?:vorherigen|bisherigen|obigen|früheren|vorigen)\s+(?:anweisungen|instruktionen|regeln|vorgaben)\b",
        r"\bab\s+(?:jetzt|sofort)\b",
        r"\bvon\s+nun\s+an\b",
        r"\bsystem-?\s?prompts?\b",
        r"\bneue\s+(?:anweisungen|instruktionen|befehle)\b",
        r"\bdu\s+(?:musst|sollst|darfst|wirst\s+ab)\b",
        r"\b(?:der|die)\s+(?:assistent\w*|ki)\s+(?:muss|soll|darf)\b",
        r"\bohne\s+(?:nachfrage|nachzufragen|rückfrage|zu\s+fragen|bestätigung|erlaubnis|zustimmung)\b",
        // French
        r"\bignore[zr]?\b[^.!?]*\b(?:instructions|consignes|règles|directives)\b",
        r"\b(?:instructions|consignes|règles|directives)\s+(?:précédentes|antérieures|ci-dessus)\b",
        r"\bà\s+partir\s+de\s+maintenant\b",
        r"\b(?:désormais|dorénavant)\b",
        r"\bprompt\s+(?:du\s+)?système\b",
        r"\bnouvelles\s+(?:instructions|consignes|directives)\b",
        r"\b(?:tu\s+dois|vous\s+devez)\b",
        r"\bl'(?:assistant|ia)\s+doit\b",
        r"\bsans\s+(?:(?:me\s+|nous\s+|lui\s+)?demander|confirmation|autorisation|permission|vérifier)\b",
        r"\bne\s+(?:demande|demandez)\s+(?:jamais|pas|plus)\s+(?:la\s+|de\s+|d')?(?:permission|autorisation|confirmation)\b",
        // Spanish
        r"\bignor[ae]\w*\b[^.!?]*\b(?:instrucciones|reglas|indicaciones)\b",
        r"\b(?:instrucciones|reglas|indicaciones)\s+(?:anteriores|previas)\b",
        r"\ba\s+partir\s+de\s+ahora\b",
        r"\bde\s+ahora\s+en\s+adelante\b",
        r"\bdesde\s+ahora\b",
        r"\bprompt\s+del\s+sistema\b",
        r"\bnuevas\s+instrucciones\b",
        r"\b(?:debes|deberás|tienes\s+que)\b",
        r"\bel\s+asistente\s+(?:debe|tiene\s+que)\b",
        r"\bsin\s+(?:preguntar|confirmaci[oó]n|pedir|permiso|autorizaci[oó]n)\b",
        r"\b(?:nunca|jamás|no)\s+(?:pidas|pida|preguntes|pregunte)\b",
        // Portuguese
        r"\bignor[ea]\w*\b[^.!?]*\b(?:instruções|regras|orientações)\b",
        r"\b(?:instruções|regras|orientações)\s+anteriores\b",
        r"\ba\s+partir\s+de\s+agora\b",
        r"\b(?:daqui|de\s+agora)\s+(?:em\s+diante|para\s+frente)\b",
        r"\bprompt\s+do\s+sistema\b",
        r"\bnovas\s+instruções\b",
        r"\b(?:você|tu)\s+(?:deve|precisa|tem\s+que)\b",
        r"\bo\s+assistente\s+(?:deve|precisa|tem\s+que)\b",
        r"\bsem\s+(?:perguntar|confirmação|pedir|permissão|autorização)\b",
        r"\b(?:nunca|jamais|não)\s+(?:peça|pergunte)\b",
        // Italian
        r"\bignora\w*\b[^.!?]*\b(?:istruzioni|regole|indicazioni)\b",
        r"\b(?:istruzioni|regole|indicazioni)\s+precedenti\b",
        r"\bd'ora\s+in\s+(?:poi|avanti)\b",
        r"\bda\s+(?:ora|adesso)\s+in\s+(?:poi|avanti)\b",
        r"\bprompt\s+di\s+sistema\b",
        r"\bnuove\s+istruzioni\b",
        r"\b(?:devi|dovrai)\s+(?:sempre\s+|mai\s+|assolutamente\s+)?\w+(?:are|ere|ire)\b",
        r"\bl'assistente\s+deve\b",
        r"\bsenza\s+(?:chiedere|conferma|permesso|autorizzazione)\b",
        // Russian
        r"\b(?:игнорир\w*|проигнорир\w*|забудь\w*|забудьте)\b[^.!?]*\b(?:инструкци\w*|правил\w*|указани\w*)",
        r"\b(?:предыдущ\w+|прежн\w+|вышеуказанн\w+)\s+(?:инструкци|правил|указани)\w*",
        r"\bс\s+этого\s+момента\b",
        r"\bотныне\b",
        r"\bсистемн\w+\s+(?:промпт|подсказк|инструкци)\w*",
        r"\bнов\w+\s+инструкци\w*",
        r"\b(?:ты|вы)\s+(?:должен|должна|должны|обязан\w*)\b",
        r"\b(?:ассистент|помощник|ии)\s+(?:должен|обязан)\b",
        r"\bбез\s+(?:запроса|подтверждени\w*|разрешени\w*|спроса|вопросов)",
        // Chinese
        r"(?:忽略|无视|忽视|忘记|忘掉).{0,8}(?:指令|指示|规则|说明|提示)",
        r"(?:之前|以前|上面|先前|此前)的.{0,4}(?:指令|指示|规则)",
        r"从现在(?:开始|起)|从今(?:以后|往后)",
        r"系统提示",
        r"新的?指令",
        r"你(?:必须|应该|应当|要|需要|得)",
        r"助手(?:必须|应该|应当|要|需要)",
        r"(?:不经|无需|无须|不用|不要|不必)(?:询问|确认|许可|同意|请求|批准)",
        r"永远不要",
        // Japanese
        r"(?:以前|これまで|前|上記|今まで)の.{0,6}(?:指示|命令|ルール|指令)",
        r"(?:指示|命令|ルール).{0,6}(?:無視|忘れ)",
        r"今後は|これからは|今から",
        r"システムプロンプト",
        r"新しい(?:指示|命令)",
        r"(?:あなた|アシスタント)は.{0,40}(?:なければならない|なければなりません|なさい|べき)",
        r"(?:確認|許可|承認)(?:せずに|しないで|なしで|なく|を求めず)|(?:尋ね|聞か|訊か)ずに",
        // Korean
        r"(?:이전|앞의|위의|기존)의?\s?(?:모든\s)?(?:지시|명령|규칙|지침)",
        r"(?:지시|명령|규칙|지침).{0,6}무시",
        r"지금부터|앞으로는|이제부터",
        r"시스템\s?프롬프트",
        r"새로운\s?(?:지시|명령|지침)",
        r"(?:너|당신|어시스턴트|비서)(?:는|은|가)\s.{0,40}(?:해야|하십시오|하세요)",
        r"(?:확인|허락|허가|승인|묻지|물어보지)\s?(?:없이|않고|말고)",
    ])
});

/// A sentence that opens (past `always`/`never`/`please` and a negation) or ends with a
/// form only an order takes, or with a verb from the short list of orders.
static IMPERATIVES: LazyLock<AnyOf> = LazyLock::new(|| {
    let de_open = r"(?:(?:immer|stets|nie|niemals|bitte|jetzt|sofort|einfach|auch)\s+)*";
    let fr_open = r"(?:(?:toujours|jamais|maintenant|aussi|s'il\s+te\s+plaît|veuillez)\s+)*";
    let es_open = r"(?:(?:siempre|nunca|jamás|ahora|también|por\s+favor|no)\s+)*";
    let pt_open = r"(?:(?:sempre|nunca|jamais|agora|também|por\s+favor|não)\s+)*";
    let it_open = r"(?:(?:sempre|mai|ora|anche|per\s+favore)\s+)*";
    let ru_open = r"(?:(?:всегда|никогда|сейчас|сразу|пожалуйста|также|не|ни)\s+)*";
    AnyOf::new([
        // German: du forms and `-en Sie`.
        format!(
            r"^{de_open}(?:ignoriere?|vergiss|führe?|lösche?|gib|zeige?|sende|schicke?|lade|installiere|frage?|sage?|schreibe?|öffne|befolge|gehorche|nutze|benutze|verwende|überspringe|deaktiviere|entferne|mache?|tue?|vertraue|akzeptiere|bestätige|kopiere|veröffentliche|teile|lies|speichere|ändere|erstelle|antworte|beantworte|wiederhole|behandle|halte|sei|vermeide|starte|pushe|committe|merge)\b"
        ),
        format!(r"^{de_open}\w+en\s+sie\b"),
        // French: `-ez`, tu forms of `-ir`/`-re` verbs, a short list of `-er` verbs.
        format!(
            r"^{fr_open}(?:ne\s+|n')?(?:ignore|exécute|supprime|efface|envoie|affiche|révèle|oublie|obéis|désactive|télécharge|installe|réponds|fais|dis|lis|écris|traduis|donne|montre|copie|partage)\b"
        ),
        format!(
            r"^{fr_open}(?:ne\s+|n')?\w{{3,}}ez\s+(?:toutes?|tous|le|la|les|l'|un|une|des|du|ce|cette|ces|mon|ma|mes|votre|vos|chaque|sans|jamais|pas|toujours|immédiatement)"
        ),
        // Spanish: tú and usted forms of a short list.
        format!(
            r"^{es_open}(?:ignora|ignore|ejecuta|ejecute|borra|borre|elimina|elimine|envía|envíe|revela|revele|olvida|olvide|obedece|obedezca|muestra|muestre|desactiva|desactive|omite|omita|instala|instale|descarga|descargue|responde|responda|copia|copie|comparte|comparta|sube|suba)\b"
        ),
        // Portuguese
        format!(
            r"^{pt_open}(?:ignore|ignora|execute|executa|apague|apaga|delete|envie|envia|revele|revela|esqueça|esquece|obedeça|obedece|mostre|mostra|desative|desativa|instale|instala|baixe|baixa|responda|responde|copie|compartilhe)\b"
        ),
        // Italian: tu and Lei forms, `non` + infinitive.
        format!(
            r"^{it_open}(?:ignora|ignori|esegui|esegua|elimina|elimini|cancella|cancelli|invia|invii|rivela|riveli|dimentica|dimentichi|obbedisci|obbedisca|mostra|mostri|disattiva|disattivi|installa|installi|scarica|scarichi|rispondi|risponda|copia|condividi)\b"
        ),
        format!(r"^{it_open}non\s+\w+(?:are|ere|ire)\b"),
        // Russian: `-й(те)` (not the adjective endings `-ый/-ий/-ой`), `-и(те)`/`-ь(те)`
        // from a list, each with an optional reflexive `-ся/-сь`.
        format!(r"^{ru_open}\w+[аяеуюё]й(?:те)?(?:с[яь])?(?:\s|$)"),
        format!(
            r"^{ru_open}(?:удали|покажи|забудь|выполни|отправь|скажи|напиши|открой|скрой|запусти|установи|скачай|загрузи|раскрой|выведи|сотри|перешли|дай|игнорируй|отключи|пропусти|ответь|сделай|слушай|повтори)(?:те)?(?:с[яь])?(?:\s|$)"
        ),
        // A first-person object bound to the verb: the speaker asks the reader (`Sag mir`,
        // `Dis-moi`, `Dime`, `Muéstrame`, `Dimmi`, `Mostrami`, `Diga-me`).
        format!(r"^{de_open}\w*[^\Wt]\s+(?:mir|mich|uns)\b"),
        r"\b\w+-(?:moi|nous)(?:[^\w-]|$)".to_owned(),
        format!(r"^{es_open}(?:\w*[áéíóú]\w*(?:me|nos)|dime|dame|hazme|ponme|dinos|danos)\b"),
        format!(r"^{it_open}(?:\w+[aei](?:mi|ci)|dimmi|dammi|fammi|stammi|dicci|dacci|facci)\b"),
        r"\b\w+-(?:me|nos)(?:[^\w-]|$)".to_owned(),
        // Chinese: please, don't, and a few orders at the start.
        r"^(?:请|不要|别|务必|切勿|删除|显示|发送|上传|泄露|打印|输出|忽略|忘记|立即|马上)".to_owned(),
        // Japanese sentence endings of orders and requests.
        r"(?:てください|でください|て下さい|で下さい|なさい|しろ|せよ|てくれ|でくれ|すること|[えけせてれろ]|[るうくぐすつぬぶむ]な)$".to_owned(),
        // Korean sentence endings of orders.
        r"(?:세요|십시오|하라|해라|라|마|말라|줘|주세요|해|봐|려|어|아|자)$".to_owned(),
    ])
});
